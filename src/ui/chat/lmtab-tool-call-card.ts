import { LitElement, css, html, nothing } from 'lit';
import { controlStyles } from '../shared/control-styles.js';
import { formatJsonText } from '../shared/format-json-text.js';

/**
 * One function call of an answer as a collapsible card: the function's name in the header, its
 * arguments pretty-printed, and the result once the person has given it.
 */
export class LmtabToolCallCard extends LitElement {
  static override properties = {
    name: { type: String },
    args: { type: String },
    result: { type: String },
    streaming: { type: Boolean },
  };

  /** The function called. */
  declare name: string;
  /** Its arguments as the model wrote them (JSON text, growing while streaming). */
  declare args: string;
  /** The tool's answer, when given. */
  declare result: string | undefined;
  /** Whether the call is still arriving. */
  declare streaming: boolean;

  constructor() {
    super();
    this.name = '';
    this.args = '';
    this.streaming = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
      }
      details {
        border: 1px solid var(--lm-border);
        border-radius: var(--lm-radius-sm);
        background: var(--lm-surface);
      }
      summary {
        list-style: none;
        display: flex;
        align-items: center;
        gap: 0.5rem;
        padding: 0.45rem 0.7rem;
        cursor: pointer;
        font-size: 0.85rem;
      }
      summary::-webkit-details-marker {
        display: none;
      }
      .chevron {
        display: inline-block;
        font-size: 0.7rem;
        color: var(--lm-muted);
        transition: transform 0.12s;
      }
      details[open] .chevron {
        transform: rotate(90deg);
      }
      .name {
        font-family: var(--lm-mono);
        font-weight: 600;
      }
      .state {
        margin-left: auto;
        font-size: 0.75rem;
        color: var(--lm-muted);
      }
      .body {
        padding: 0 0.7rem 0.6rem;
        display: flex;
        flex-direction: column;
        gap: 0.4rem;
      }
      h4 {
        margin: 0.3rem 0 0;
        font-size: 0.72rem;
        text-transform: uppercase;
        letter-spacing: 0.06em;
        color: var(--lm-muted);
      }
      pre {
        margin: 0;
        padding: 0.5rem 0.6rem;
        border-radius: var(--lm-radius-sm);
        background: var(--lm-code-bg);
        font-family: var(--lm-mono);
        font-size: 0.8rem;
        line-height: 1.45;
        white-space: pre-wrap;
        overflow-wrap: anywhere;
      }
      .note {
        font-size: 0.75rem;
        color: var(--lm-muted);
      }
    `,
  ];

  override render() {
    const args = formatJsonText(this.args);
    const state = this.streaming
      ? 'calling…'
      : this.result === undefined
        ? 'waiting for a result'
        : 'answered';
    return html`<details>
      <summary>
        <span class="chevron" aria-hidden="true">▶</span>
        <span aria-hidden="true">ƒ</span>
        <span class="name">${this.name || 'function'}</span>
        <span class="state">${state}</span>
      </summary>
      <div class="body">
        <h4>Arguments</h4>
        <pre data-testid="tool-arguments">${args.text}</pre>
        ${
          !args.valid && !this.streaming
            ? html`<span class="note">These arguments are not valid JSON.</span>`
            : nothing
        }
        ${
          this.result === undefined
            ? nothing
            : html`<h4>Result</h4>
                <pre data-testid="tool-result">${formatJsonText(this.result).text}</pre>`
        }
      </div>
    </details>`;
  }
}

customElements.define('lmtab-tool-call-card', LmtabToolCallCard);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-tool-call-card': LmtabToolCallCard;
  }
}
