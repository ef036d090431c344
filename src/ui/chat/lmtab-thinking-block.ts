import { LitElement, css, html } from 'lit';
import { controlStyles } from '../shared/control-styles.js';

/**
 * An answer's thinking (`reasoning_content`) as a collapsible block apart from the answer: open
 * while the model thinks, closed once the answer starts (the person may open it again).
 */
export class LmtabThinkingBlock extends LitElement {
  static override properties = {
    text: { type: String },
    thinking: { type: Boolean },
  };

  /** The thinking text so far. */
  declare text: string;
  /** Whether the model is thinking now (streaming, no answer text yet). */
  declare thinking: boolean;

  constructor() {
    super();
    this.text = '';
    this.thinking = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
        margin-bottom: 0.6rem;
      }
      details {
        border-left: 3px solid var(--lm-border);
        padding-left: 0.75rem;
      }
      summary {
        cursor: pointer;
        font-size: 0.82rem;
        font-weight: 600;
        color: var(--lm-muted);
        width: fit-content;
      }
      .thinking summary {
        animation: pulse 1.6s infinite ease-in-out;
      }
      @keyframes pulse {
        50% {
          opacity: 0.45;
        }
      }
      .text {
        margin: 0.4rem 0 0;
        white-space: pre-wrap;
        overflow-wrap: anywhere;
        font-size: 0.875rem;
        line-height: 1.5;
        color: var(--lm-muted);
      }
    `,
  ];

  override render() {
    // `?open` only changes the element when `thinking` does, so a person's own toggle stays.
    return html`<details class=${this.thinking ? 'thinking' : ''} ?open=${this.thinking}>
      <summary>${this.thinking ? 'Thinking…' : 'Thoughts'}</summary>
      <div class="text" data-testid="reasoning">${this.text.trim()}</div>
    </details>`;
  }
}

customElements.define('lmtab-thinking-block', LmtabThinkingBlock);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-thinking-block': LmtabThinkingBlock;
  }
}
