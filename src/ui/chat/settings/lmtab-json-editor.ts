import { LitElement, css, html } from 'lit';
import { live } from 'lit/directives/live.js';
import type { JsonCheck } from './check-json-settings.js';
import { controlStyles } from '../../shared/control-styles.js';

/**
 * A JSON editor that checks as you type: the text goes up as `json-edit` with `{text, final}` on
 * every keystroke (`final` false) and when the field is left (`final` true); the check's error
 * shows under the field.
 */
export class LmtabJsonEditor extends LitElement {
  static override properties = {
    value: { type: String },
    label: { type: String },
    check: { attribute: false },
    valid: { type: String },
  };

  /** The text. */
  declare value: string;
  /** The field's accessible name. */
  declare label: string;
  /** What makes the text valid; any JSON when not given. */
  declare check: (text: string) => JsonCheck<unknown>;
  /** What to say when the text passes the check, e.g. "Valid schema". */
  declare valid: string;

  constructor() {
    super();
    this.value = '';
    this.label = 'JSON';
    this.valid = 'Valid JSON';
    this.check = (text) => {
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch (error) {
        return { ok: false, error: (error as Error).message };
      }
    };
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: flex;
        flex-direction: column;
        gap: 0.35rem;
      }
      textarea {
        min-height: 11rem;
        font-family: var(--lm-mono);
        font-size: 0.78rem;
        line-height: 1.4;
        tab-size: 2;
        white-space: pre-wrap;
      }
      textarea[aria-invalid='true'] {
        border-color: var(--lm-danger);
      }
      .status {
        display: flex;
        align-items: flex-start;
        gap: 0.5rem;
        font-size: 0.75rem;
        line-height: 1.4;
      }
      .status .ok {
        color: var(--lm-success);
      }
      .status .error {
        overflow-wrap: anywhere;
      }
      .status button {
        margin-left: auto;
      }
    `,
  ];

  private edit(text: string, final: boolean) {
    this.dispatchEvent(
      new CustomEvent('json-edit', { detail: { text, final }, bubbles: true, composed: true }),
    );
  }

  override render() {
    const result = this.check(this.value);
    return html`<textarea
        aria-label=${this.label}
        aria-invalid=${result.ok ? 'false' : 'true'}
        aria-describedby="status"
        spellcheck="false"
        autocomplete="off"
        .value=${live(this.value)}
        @input=${(e: Event) => this.edit((e.target as HTMLTextAreaElement).value, false)}
        @change=${(e: Event) => this.edit((e.target as HTMLTextAreaElement).value, true)}
      ></textarea>
      <div class="status" id="status" aria-live="polite">
        ${
          result.ok
            ? html`<span class="ok" data-testid="json-valid">✓ ${this.valid}</span>
                <button
                  class="ghost small"
                  type="button"
                  @click=${() => this.edit(JSON.stringify(result.value, null, 2), true)}
                >
                  Format
                </button>`
            : html`<span class="error" data-testid="json-error">${result.error}</span>`
        }
      </div>`;
  }
}

customElements.define('lmtab-json-editor', LmtabJsonEditor);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-json-editor': LmtabJsonEditor;
  }
}
