import { LitElement, css, html } from 'lit';
import { controlStyles } from './control-styles.js';

/**
 * A modal question with Cancel and a confirming button (a native `<dialog>`, so focus is trapped
 * and Escape cancels). Fires `confirm` or `cancel`; the owner closes it by setting `open` to false.
 */
export class LmtabConfirmDialog extends LitElement {
  static override properties = {
    open: { type: Boolean, reflect: true },
    heading: { type: String },
    message: { type: String },
    confirmLabel: { type: String, attribute: 'confirm-label' },
    danger: { type: Boolean },
    busy: { type: Boolean },
  };

  /** Whether the dialog shows. */
  declare open: boolean;
  /** The question, e.g. `Delete lfm2-350m?`. */
  declare heading: string;
  /** What confirming does, in a sentence or two. */
  declare message: string;
  /** Text of the confirming button; default `Confirm`. */
  declare confirmLabel: string;
  /** Styles the confirming button as destructive. */
  declare danger: boolean;
  /** Disables the buttons while the confirmed action runs. */
  declare busy: boolean;

  constructor() {
    super();
    this.open = false;
    this.heading = '';
    this.message = '';
    this.confirmLabel = 'Confirm';
    this.danger = false;
    this.busy = false;
  }

  static override styles = [
    controlStyles,
    css`
      dialog {
        width: min(28rem, calc(100vw - 2rem));
        padding: 1.25rem;
        border: 1px solid var(--lm-border);
        border-radius: var(--lm-radius);
        background: var(--lm-surface);
        color: var(--lm-text);
        box-shadow: var(--lm-shadow);
      }
      dialog::backdrop {
        background: rgb(0 0 0 / 0.45);
      }
      h2 {
        font-size: 1.05rem;
        overflow-wrap: anywhere;
      }
      .body {
        margin: 0.75rem 0 1.25rem;
        color: var(--lm-muted);
        font-size: 0.9rem;
        line-height: 1.5;
      }
      .actions {
        display: flex;
        justify-content: flex-end;
        gap: 0.5rem;
      }
    `,
  ];

  private get dialog(): HTMLDialogElement | null {
    return this.renderRoot.querySelector('dialog');
  }

  override updated(changed: Map<string, unknown>) {
    if (!changed.has('open')) return;
    const dialog = this.dialog;
    if (!dialog) return;
    if (this.open && !dialog.open) dialog.showModal();
    else if (!this.open && dialog.open) dialog.close();
  }

  private emit(type: 'confirm' | 'cancel') {
    this.dispatchEvent(new CustomEvent(type, { bubbles: false, composed: false }));
  }

  override render() {
    return html`<dialog
      aria-labelledby="heading"
      aria-describedby="message"
      @cancel=${(event: Event) => {
        event.preventDefault();
        if (!this.busy) this.emit('cancel');
      }}
    >
      <h2 id="heading">${this.heading}</h2>
      <p class="body" id="message">${this.message}</p>
      <div class="actions">
        <button type="button" ?disabled=${this.busy} @click=${() => this.emit('cancel')}>
          Cancel
        </button>
        <button
          type="button"
          class=${this.danger ? 'danger solid' : 'primary'}
          ?disabled=${this.busy}
          @click=${() => this.emit('confirm')}
        >
          ${this.confirmLabel}
        </button>
      </div>
    </dialog>`;
  }
}

customElements.define('lmtab-confirm-dialog', LmtabConfirmDialog);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-confirm-dialog': LmtabConfirmDialog;
  }
}
