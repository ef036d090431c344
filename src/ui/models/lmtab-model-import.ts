import { LitElement, css, html, nothing } from 'lit';
import type { ModelRecord, ModelStore } from '../../store/index.js';
import { formatBytes } from '../../store/index.js';
import { controlStyles } from '../shared/control-styles.js';

/**
 * Import of a local GGUF file (and optional vision projector, chosen first) into the model store.
 * Fires `model-imported` with the new record.
 */
export class LmtabModelImport extends LitElement {
  static override properties = {
    store: { attribute: false },
    progress: { state: true },
    share: { state: true },
    error: { state: true },
    busy: { state: true },
  };

  /** The page's model store. */
  declare store: ModelStore | undefined;
  declare progress: string;
  /** Fraction of the current file stored, while importing. */
  declare share: number | undefined;
  declare error: string;
  declare busy: boolean;
  private projector: File | undefined;

  constructor() {
    super();
    this.progress = '';
    this.error = '';
    this.busy = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: flex;
        flex-wrap: wrap;
        gap: 0.75rem 1.5rem;
        align-items: flex-start;
      }
      label {
        display: flex;
        flex-direction: column;
        gap: 0.35rem;
        font-size: 0.85rem;
        font-weight: 600;
        min-width: 0;
        max-width: 100%;
      }
      input[type='file'] {
        font-size: 0.82rem;
        font-weight: 400;
        color: var(--lm-muted);
        max-width: 100%;
      }
      input[type='file']::file-selector-button {
        font: inherit;
        font-weight: 500;
        margin-right: 0.6rem;
        padding: 0.4rem 0.8rem;
        border: 1px solid var(--lm-border);
        border-radius: var(--lm-radius-sm);
        background: var(--lm-surface-2);
        color: var(--lm-text);
        cursor: pointer;
      }
      label.main input[type='file']::file-selector-button {
        background: var(--lm-accent);
        border-color: var(--lm-accent);
        color: var(--lm-accent-text);
      }
      input[type='file']:focus-visible {
        outline: 2px solid var(--lm-focus);
        outline-offset: 2px;
      }
      .status {
        flex-basis: 100%;
        display: flex;
        flex-direction: column;
        gap: 0.35rem;
        font-size: 0.85rem;
      }
      .status:empty {
        display: none;
      }
      progress {
        width: min(100%, 24rem);
        accent-color: var(--lm-accent);
      }
      .error {
        flex-basis: 100%;
        margin: 0;
        font-size: 0.85rem;
      }
    `,
  ];

  private onProjector(event: Event) {
    this.projector = (event.target as HTMLInputElement).files?.[0];
  }

  private async onModel(event: Event) {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file || !this.store) return;
    this.error = '';
    this.busy = true;
    try {
      let record: ModelRecord | undefined;
      for await (const step of this.store.importFiles(file, { projector: this.projector })) {
        if (step.type === 'progress') {
          this.progress = `Importing ${step.file}: ${formatBytes(step.bytes)} of ${formatBytes(step.total)}`;
          this.share = step.total > 0 ? step.bytes / step.total : undefined;
        } else {
          record = step.record;
        }
      }
      this.progress = record ? `Imported ${record.id}` : '';
      this.dispatchEvent(
        new CustomEvent('model-imported', { detail: record, bubbles: true, composed: true }),
      );
    } catch (error) {
      this.progress = '';
      this.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.busy = false;
      this.share = undefined;
      input.value = '';
      // The projector belongs to this import only: the next model must not pick it up.
      this.projector = undefined;
      const projectorInput = this.renderRoot.querySelector<HTMLInputElement>('[name="projector"]');
      if (projectorInput) projectorInput.value = '';
    }
  }

  override render() {
    return html`
      <label>
        Projector file (optional)
        <input
          type="file"
          name="projector"
          accept=".gguf"
          ?disabled=${this.busy}
          @change=${this.onProjector}
        />
      </label>
      <label class="main">
        Import model file
        <input type="file" accept=".gguf" ?disabled=${this.busy} @change=${this.onModel} />
      </label>
      <div class="status">
        <span role="status">${this.progress}</span>
        ${
          this.share !== undefined
            ? html`<progress max="1" .value=${this.share} aria-label="Import progress"></progress>`
            : nothing
        }
      </div>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
    `;
  }
}

customElements.define('lmtab-model-import', LmtabModelImport);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-model-import': LmtabModelImport;
  }
}
