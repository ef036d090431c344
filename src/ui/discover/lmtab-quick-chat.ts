import { LitElement, css, html, nothing } from 'lit';
import { controlStyles } from '../shared/control-styles.js';
import { icons } from '../shared/icons.js';
import { createApiClient, type ApiClient } from '../client/api-client.js';
import { streamChatAnswer } from '../chat/stream-chat-answer.js';
import '../shared/lmtab-markdown.js';

/** One turn of a quick chat. */
interface QuickTurn {
  role: 'user' | 'assistant';
  content: string;
  error?: string;
  /** `N tokens · X tok/s`, once an answer is complete. */
  stats?: string;
}

/** Tokens an answer may take here: enough for a real reply, bounded for a first try. */
const maxTokens = 1024;

/**
 * A small chat right in Discover, to try a model the moment it is downloaded: messages stream
 * from the page's own `/v1/chat/completions`; nothing is saved (the Chat tab keeps conversations).
 * Fires `quick-chat-close` from its Close button.
 */
export class LmtabQuickChat extends LitElement {
  static override properties = {
    model: { type: String },
    label: { type: String },
    api: { attribute: false },
    turns: { state: true },
    busy: { state: true },
  };

  /** The stored model's id. */
  declare model: string;
  /** Its name for people. */
  declare label: string;
  /** The page's API. */
  declare api: ApiClient;
  declare turns: QuickTurn[];
  declare busy: boolean;
  private controller: AbortController | undefined;

  constructor() {
    super();
    this.api = createApiClient();
    this.model = '';
    this.label = '';
    this.turns = [];
    this.busy = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
      }
      section {
        display: flex;
        flex-direction: column;
        gap: 0.75rem;
        padding: 1rem 1.1rem;
        border-color: var(--lm-accent);
        box-shadow: var(--lm-shadow-sm);
      }
      header {
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 0.75rem;
      }
      h3 {
        font-size: 1rem;
        overflow-wrap: anywhere;
      }
      header .muted {
        font-size: 0.8rem;
        margin: 0.15rem 0 0;
      }
      .log {
        display: flex;
        flex-direction: column;
        gap: 0.6rem;
        max-height: 22rem;
        overflow-y: auto;
      }
      .turn {
        padding: 0.55rem 0.8rem;
        border-radius: var(--lm-radius-sm);
        font-size: 0.9rem;
        overflow-wrap: anywhere;
      }
      .turn.user {
        align-self: flex-end;
        max-width: 85%;
        background: var(--lm-user-bubble);
        white-space: pre-wrap;
      }
      .turn.assistant {
        background: var(--lm-surface-2);
      }
      .stats {
        display: block;
        margin-top: 0.35rem;
        font-size: 0.75rem;
        color: var(--lm-muted);
      }
      form {
        display: flex;
        gap: 0.5rem;
        align-items: flex-end;
      }
      textarea {
        min-height: 2.6rem;
        max-height: 8rem;
        resize: none;
      }
      .links {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem 1rem;
        font-size: 0.82rem;
      }
    `,
  ];

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.controller?.abort();
  }

  override updated(changed: Map<string, unknown>) {
    if (changed.has('model') && changed.get('model') !== undefined) {
      this.controller?.abort();
      this.turns = [];
    }
    this.renderRoot.querySelector('.log')?.scrollTo({ top: 1e9 });
  }

  /** Moves the focus to the message box. */
  override focus() {
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLTextAreaElement>('textarea')?.focus(),
    );
  }

  private onKey(event: KeyboardEvent) {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void this.send();
    }
  }

  private async send(event?: Event) {
    event?.preventDefault();
    const box = this.renderRoot.querySelector<HTMLTextAreaElement>('textarea');
    const text = box?.value.trim() ?? '';
    if (text === '' || this.busy || this.model === '') return;
    if (box) box.value = '';
    const history = this.turns.filter((t) => t.error === undefined && t.content !== '');
    const messages = [...history, { role: 'user' as const, content: text }].map(
      ({ role, content }) => ({ role, content }),
    );
    this.turns = [
      ...this.turns,
      { role: 'user', content: text },
      { role: 'assistant', content: '' },
    ];
    this.busy = true;
    const controller = new AbortController();
    this.controller = controller;
    // The Chat tab's streaming loop and its tok/s, so one model shows one speed.
    const streamed = await streamChatAnswer(
      {
        model: this.model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: maxTokens,
      },
      {
        api: this.api,
        signal: controller.signal,
        onPiece: (answer) => this.setLast({ content: answer.content }),
      },
    );
    const { content } = streamed.answer;
    if (streamed.stopped) this.setLast({ content, stats: 'stopped' });
    else if (streamed.error !== undefined) this.setLast({ content, error: streamed.error });
    else {
      const tokens = streamed.stats?.tokens ?? 0;
      const speed = streamed.stats?.tokensPerSecond ?? 0;
      this.setLast({ content, stats: `${tokens} tokens · ${speed.toFixed(1)} tok/s` });
    }
    if (this.controller === controller) this.controller = undefined;
    this.busy = false;
  }

  private setLast(patch: Partial<QuickTurn>) {
    const turns = [...this.turns];
    const last = turns.at(-1);
    if (last !== undefined) turns[turns.length - 1] = { ...last, ...patch };
    this.turns = turns;
  }

  private close() {
    this.controller?.abort();
    this.dispatchEvent(new CustomEvent('quick-chat-close', { bubbles: true, composed: true }));
  }

  override render() {
    return html`<section class="card" aria-labelledby="quick-chat-heading">
      <header>
        <div>
          <h3 id="quick-chat-heading">Chat with ${this.label || this.model}</h3>
          <p class="muted">Runs in this tab, on this device. Nothing is sent anywhere.</p>
        </div>
        <button class="ghost icon" aria-label="Close the chat" @click=${this.close}>
          ${icons.close}
        </button>
      </header>
      ${
        this.turns.length === 0
          ? nothing
          : html`<div class="log" role="log" aria-label="Messages" aria-live="polite">
              ${this.turns.map(
                (t) =>
                  html`<div class="turn ${t.role}" data-role=${t.role}>
                    ${
                      t.role === 'user'
                        ? t.content
                        : html`<lmtab-markdown .text=${t.content || '…'}></lmtab-markdown>`
                    }
                    ${t.error ? html`<p class="error" role="alert">${t.error}</p>` : nothing}
                    ${
                      t.stats
                        ? html`<span class="stats" data-testid="quick-stats">${t.stats}</span>`
                        : nothing
                    }
                  </div>`,
              )}
            </div>`
      }
      <form @submit=${this.send}>
        <textarea
          rows="1"
          aria-label="Message to ${this.label || this.model}"
          placeholder="Ask ${this.label || 'the model'} something…"
          @keydown=${this.onKey}
        ></textarea>
        ${
          this.busy
            ? html`<button type="button" aria-label="Stop" @click=${() => this.controller?.abort()}>
                ${icons.stop}
              </button>`
            : html`<button class="primary" type="submit" aria-label="Send">${icons.send}</button>`
        }
      </form>
      <div class="links">
        <a href="#chat">Open the Chat tab for saved conversations, images and settings</a>
      </div>
    </section>`;
  }
}

customElements.define('lmtab-quick-chat', LmtabQuickChat);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-quick-chat': LmtabQuickChat;
  }
}
