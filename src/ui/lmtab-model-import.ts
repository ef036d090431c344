import { LitElement, css, html } from 'lit';
import type { ModelRecord, ModelStore } from '../store/index.js';
import { formatBytes } from '../store/index.js';

/** Import of a local GGUF file (and optional vision projector) into the model store. */
export class LmtabModelImport extends LitElement {
  static override properties = {
    store: { attribute: false },
    progress: { state: true },
    error: { state: true },
  };

  declare store: ModelStore | undefined;
  declare progress: string;
  declare error: string;
  private projector: File | undefined;

  constructor() {
    super();
    this.progress = '';
    this.error = '';
  }

  static override styles = css`
    :host {
      display: flex;
      flex-wrap: wrap;
      gap: 0.75rem;
      align-items: center;
    }
    label {
      display: inline-flex;
      gap: 0.4rem;
      align-items: center;
      font-size: 0.9rem;
    }
    .error {
      color: #c92a2a;
      flex-basis: 100%;
    }
    .progress {
      opacity: 0.8;
      font-size: 0.85rem;
    }
  `;

  private onProjector(event: Event) {
    this.projector = (event.target as HTMLInputElement).files?.[0];
  }

  private async onModel(event: Event) {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file || !this.store) return;
    this.error = '';
    try {
      let record: ModelRecord | undefined;
      for await (const step of this.store.importFiles(file, { projector: this.projector })) {
        if (step.type === 'progress') {
          this.progress = `Importing ${step.file}: ${formatBytes(step.bytes)} of ${formatBytes(step.total)}`;
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
      input.value = '';
    }
  }

  override render() {
    return html`
      <label>
        Projector file (optional)
        <input type="file" accept=".gguf" @change=${this.onProjector} />
      </label>
      <label>
        Import model file
        <input type="file" accept=".gguf" @change=${this.onModel} />
      </label>
      <span class="progress" role="status">${this.progress}</span>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : null}
    `;
  }
}

customElements.define('lmtab-model-import', LmtabModelImport);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-model-import': LmtabModelImport;
  }
}
