import { LitElement, css, html, nothing } from 'lit';
import { controlStyles } from '../shared/control-styles.js';
import type { TurnStats, TurnToolCall } from './conversation.js';
import { jsonAnswerMarkdown } from '../shared/format-json-text.js';
import { icons } from '../shared/icons.js';
import '../shared/lmtab-markdown.js';
import './lmtab-thinking-block.js';
import './lmtab-tool-call-card.js';

const finishText: Record<TurnStats['finishReason'], string> = {
  stop: 'finish: stop',
  length: 'finish: length (max tokens)',
  tool_calls: 'finish: tool_calls',
  stopped: 'stopped by you',
};

function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One message of a conversation: the person's text and images, or an answer: its thinking in a
 * collapsible block, its text as markdown (or formatted JSON when asked for as JSON), its tool
 * calls as cards, its stats, error and actions. Fires `regenerate` from the last answer's button.
 */
export class LmtabChatMessage extends LitElement {
  static override properties = {
    author: { type: String, reflect: true, attribute: 'data-role' },
    content: { type: String },
    images: { attribute: false },
    audio: { attribute: false },
    model: { type: String },
    reasoning: { type: String },
    toolCalls: { attribute: false },
    json: { type: Boolean },
    stats: { attribute: false },
    error: { type: String },
    streaming: { type: Boolean },
    canRegenerate: { type: Boolean, attribute: 'can-regenerate' },
    copied: { state: true },
  };

  /** Who wrote it (reflected as `data-role`; `role` itself is ARIA's). */
  declare author: 'user' | 'assistant';
  /** Plain text (user) or markdown (assistant). */
  declare content: string;
  /** Attached images as data URIs. */
  declare images: string[];
  /** Attached audio clips as data URIs. */
  declare audio: string[];
  /** The model that answered. */
  declare model: string;
  /** The answer's thinking. */
  declare reasoning: string;
  /** The functions the answer called. */
  declare toolCalls: TurnToolCall[];
  /** Whether the answer was asked for as JSON (shown formatted). */
  declare json: boolean;
  declare stats: TurnStats | undefined;
  /** Why the answer failed. */
  declare error: string;
  /** Whether the answer is still arriving. */
  declare streaming: boolean;
  /** Whether to offer Regenerate (the last answer, when nothing is generating). */
  declare canRegenerate: boolean;
  declare copied: boolean;

  constructor() {
    super();
    this.author = 'user';
    this.content = '';
    this.images = [];
    this.audio = [];
    this.model = '';
    this.reasoning = '';
    this.toolCalls = [];
    this.json = false;
    this.error = '';
    this.streaming = false;
    this.canRegenerate = false;
    this.copied = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
      }
      :host([data-role='user']) .turn {
        margin-left: auto;
        max-width: min(85%, 40rem);
        width: fit-content;
        padding: 0.6rem 0.9rem;
        border-radius: var(--lm-radius) var(--lm-radius) 4px var(--lm-radius);
        background: var(--lm-user-bubble);
        overflow-wrap: anywhere;
        line-height: 1.55;
      }
      .text {
        white-space: pre-wrap;
      }
      .who {
        display: flex;
        align-items: center;
        gap: 0.4rem;
        margin-bottom: 0.3rem;
        font-size: 0.78rem;
        font-weight: 600;
        color: var(--lm-muted);
      }
      .images {
        display: flex;
        flex-wrap: wrap;
        justify-content: flex-end;
        gap: 0.4rem;
        margin-bottom: 0.4rem;
      }
      .turn audio {
        display: block;
        margin: 0 0 0.4rem auto;
        max-width: 100%;
      }
      :host([data-role='assistant']) .turn audio {
        margin: 0.4rem 0 0;
      }
      .images img {
        width: 7rem;
        height: 7rem;
        object-fit: cover;
        border-radius: var(--lm-radius-sm);
        border: 1px solid var(--lm-border);
        background: var(--lm-surface-2);
      }
      .foot {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.25rem 0.75rem;
        margin-top: 0.45rem;
        min-height: 1.9rem;
      }
      .stats {
        display: flex;
        flex-wrap: wrap;
        gap: 0.15rem 0.75rem;
        font-size: 0.75rem;
        color: var(--lm-muted);
        font-variant-numeric: tabular-nums;
      }
      .actions {
        display: flex;
        gap: 0.15rem;
        margin-left: auto;
      }
      .typing {
        display: inline-flex;
        gap: 0.25rem;
        padding: 0.5rem 0;
      }
      .typing span {
        width: 0.45rem;
        height: 0.45rem;
        border-radius: 50%;
        background: var(--lm-muted);
        animation: blink 1.2s infinite ease-in-out;
      }
      .typing span:nth-child(2) {
        animation-delay: 0.2s;
      }
      .typing span:nth-child(3) {
        animation-delay: 0.4s;
      }
      @keyframes blink {
        0%,
        80%,
        100% {
          opacity: 0.25;
        }
        40% {
          opacity: 1;
        }
      }
      .empty {
        margin: 0;
        font-style: italic;
        font-size: 0.9rem;
      }
      .calls {
        display: flex;
        flex-direction: column;
        gap: 0.4rem;
        margin-top: 0.5rem;
      }
      .error {
        display: flex;
        gap: 0.5rem;
        align-items: flex-start;
        margin: 0.5rem 0 0;
        padding: 0.6rem 0.75rem;
        border-radius: var(--lm-radius-sm);
        background: var(--lm-danger-soft);
        font-size: 0.875rem;
        line-height: 1.45;
        overflow-wrap: anywhere;
      }
    `,
  ];

  private async copy() {
    try {
      await navigator.clipboard.writeText(this.content);
      this.copied = true;
      setTimeout(() => (this.copied = false), 1500);
    } catch {
      getSelection()?.selectAllChildren(this.renderRoot.querySelector('lmtab-markdown') ?? this);
    }
  }

  private renderStats(stats: TurnStats) {
    return html`<span class="stats" data-testid="stats">
      <span title="Tokens per second, from the first token to the last"
        >${stats.tokensPerSecond.toFixed(1)} tok/s</span
      >
      <span title="Time to first token"
        >${formatSeconds(stats.timeToFirstTokenMs)} to first token</span
      >
      <span
        title=${
          stats.promptTokens === undefined
            ? 'Tokens generated'
            : `${stats.promptTokens} prompt tokens in, ${stats.tokens} generated`
        }
        data-prompt-tokens=${stats.promptTokens ?? nothing}
        >${stats.tokens} token${stats.tokens === 1 ? '' : 's'}</span
      >
      <span title="finish_reason">${finishText[stats.finishReason]}</span>
    </span>`;
  }

  override render() {
    const clips = this.audio.map(
      (src, i) =>
        html`<audio
          controls
          src=${src}
          aria-label="Attached audio clip ${i + 1} of ${this.audio.length}"
        ></audio>`,
    );
    if (this.author === 'user') {
      const images = this.images.length
        ? html`<div class="images">
            ${this.images.map(
              (src, i) =>
                html`<img
                  src=${src}
                  alt="Attached image ${i + 1} of ${this.images.length}"
                  loading="lazy"
                />`,
            )}
          </div>`
        : nothing;
      // The text keeps its line breaks: the template around it adds none.
      return html`<div class="turn">
        ${images}${clips}${this.content ? html`<div class="text">${this.content}</div>` : nothing}
      </div>`;
    }
    const calls = this.toolCalls;
    const waiting =
      this.streaming && this.content === '' && this.reasoning === '' && calls.length === 0;
    const text = this.json && this.content !== '' ? jsonAnswerMarkdown(this.content) : this.content;
    return html`<div class="turn">
      <div class="who">${icons.chip} ${this.model === '' ? 'Assistant' : this.model}</div>
      ${
        this.reasoning === ''
          ? nothing
          : html`<lmtab-thinking-block
              .text=${this.reasoning}
              ?thinking=${this.streaming && this.content === '' && calls.length === 0}
            ></lmtab-thinking-block>`
      }
      ${
        waiting
          ? html`<span class="typing" role="status" aria-label="Generating">
              <span></span><span></span><span></span>
            </span>`
          : this.content.trim() === '' && calls.length === 0 && !this.streaming && !this.error
            ? html`<p class="muted empty">
                ${
                  this.reasoning === ''
                    ? 'This answer has no visible text.'
                    : 'The model gave no answer after its thoughts.'
                }
              </p>`
            : this.content === ''
              ? nothing
              : html`<lmtab-markdown .text=${text}></lmtab-markdown>`
      }
      ${clips}
      ${
        calls.length === 0
          ? nothing
          : html`<div class="calls" aria-label="Tool calls">
              ${calls.map(
                (call, i) =>
                  html`<lmtab-tool-call-card
                    .name=${call.name}
                    .args=${call.arguments}
                    .result=${call.result}
                    ?streaming=${this.streaming && i === calls.length - 1}
                  ></lmtab-tool-call-card>`,
              )}
            </div>`
      }
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${
        this.streaming
          ? nothing
          : html`<div class="foot">
              ${this.stats ? this.renderStats(this.stats) : nothing}
              <span class="actions">
                ${
                  this.content.trim() !== ''
                    ? html`<button
                        class="ghost small"
                        type="button"
                        aria-label=${this.copied ? 'Copied' : 'Copy answer'}
                        title="Copy answer"
                        @click=${this.copy}
                      >
                        ${this.copied ? icons.check : icons.copy}
                      </button>`
                    : nothing
                }
                ${
                  this.canRegenerate
                    ? html`<button
                        class="ghost small"
                        type="button"
                        @click=${() =>
                          this.dispatchEvent(
                            new CustomEvent('regenerate', { bubbles: true, composed: true }),
                          )}
                      >
                        ${icons.refresh} Regenerate
                      </button>`
                    : nothing
                }
              </span>
            </div>`
      }
    </div>`;
  }
}

customElements.define('lmtab-chat-message', LmtabChatMessage);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-chat-message': LmtabChatMessage;
  }
}
