import { LitElement, css, html, nothing } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { isEmbeddingOnly } from '../../engine/index.js';
import type { ModelRecord, ModelStore } from '../../store/index.js';
import { formatBytes } from '../../store/index.js';
import { controlStyles, pageStyles } from '../shared/control-styles.js';
import { formatParameterCount } from '../shared/format-parameter-count.js';
import { formatRelativeTime } from '../shared/format-relative-time.js';
import { icons } from '../shared/icons.js';
import { createApiClient, type ApiClient } from '../client/api-client.js';
import { failureText } from '../client/failure-text.js';
import '../shared/lmtab-confirm-dialog.js';
import './lmtab-model-import.js';

/** What `navigator.storage` says about this origin. */
interface StorageState {
  usage: number;
  quota: number;
  persisted: boolean;
}

function sourceText(record: ModelRecord): string {
  if (record.customization) return `custom, from ${record.customization.from}`;
  const { source } = record;
  if (source.kind === 'hub') return `${source.repo} (${source.quantization})`;
  // No MLC artifact can be had where lmtab is tested: its answers are unverified (docs/engine.md).
  if (source.kind === 'mlc') return `WebGPU (MLC): ${source.catalogId}, untested by lmtab`;
  return `imported from ${source.fileName}`;
}

/**
 * My Models: every stored model with size, quantization, architecture, a vision badge and when it
 * was last used; storage used against the quota; delete with a confirmation; import of local
 * files. Fires `models-changed` after a delete (imports fire `model-imported`).
 */
export class LmtabModelsView extends LitElement {
  static override properties = {
    store: { attribute: false },
    api: { attribute: false },
    models: { attribute: false },
    active: { type: Boolean },
    storage: { state: true },
    pending: { state: true },
    deleting: { state: true },
    error: { state: true },
  };

  /** The page's model store (the import writes to it). */
  declare store: ModelStore | undefined;
  /** The page's API (deletes go through it, so the engine unloads first). */
  declare api: ApiClient;
  /** The stored models, newest first. */
  declare models: ModelRecord[];
  /** Whether the tab shows (storage is measured then). */
  declare active: boolean;
  declare storage: StorageState | undefined;
  /** The model whose deletion awaits confirmation. */
  declare pending: ModelRecord | undefined;
  declare deleting: boolean;
  declare error: string;

  constructor() {
    super();
    this.api = createApiClient();
    this.models = [];
    this.active = false;
    this.deleting = false;
    this.error = '';
  }

  static override styles = [
    controlStyles,
    pageStyles,
    css`
      header {
        display: flex;
        flex-wrap: wrap;
        gap: 1rem;
        align-items: flex-end;
        justify-content: space-between;
      }
      .storage {
        min-width: min(100%, 20rem);
        display: flex;
        flex-direction: column;
        gap: 0.35rem;
        font-size: 0.8rem;
      }
      .storage .label {
        display: flex;
        justify-content: space-between;
        gap: 1rem;
      }
      .bar {
        height: 0.45rem;
        border-radius: 999px;
        background: var(--lm-surface-2);
        border: 1px solid var(--lm-border);
        overflow: hidden;
      }
      .bar span {
        display: block;
        height: 100%;
        background: var(--lm-accent);
        min-width: 2px;
      }
      .import {
        padding: 1rem 1.25rem;
      }
      .import h3 {
        font-size: 0.95rem;
        margin-bottom: 0.2rem;
      }
      .import p {
        margin: 0 0 0.75rem;
        font-size: 0.82rem;
        color: var(--lm-muted);
      }
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
        display: flex;
        flex-direction: column;
        gap: 0.6rem;
      }
      li {
        display: grid;
        grid-template-columns: auto 1fr auto;
        gap: 0.3rem 1rem;
        align-items: center;
        padding: 0.85rem 1rem;
      }
      .icon {
        display: inline-flex;
        padding: 0.55rem;
        border-radius: 0.7rem;
        background: var(--lm-accent-soft);
        color: var(--lm-accent-on-soft);
      }
      .name {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.35rem 0.5rem;
        min-width: 0;
      }
      .name h3 {
        font-size: 0.95rem;
        overflow-wrap: anywhere;
      }
      .facts {
        display: flex;
        flex-wrap: wrap;
        gap: 0.2rem 1rem;
        margin: 0.3rem 0 0;
        font-size: 0.8rem;
        color: var(--lm-muted);
      }
      .facts div {
        display: flex;
        gap: 0.3rem;
      }
      .facts dt::after {
        content: ':';
      }
      .facts dd {
        margin: 0;
        color: var(--lm-text);
        font-variant-numeric: tabular-nums;
      }
      .empty {
        padding: 2.5rem 1.5rem;
        text-align: center;
      }
      .empty p {
        color: var(--lm-muted);
        margin: 0.5rem 0 1rem;
      }
      a.button {
        display: inline-flex;
        align-items: center;
        gap: 0.4rem;
        padding: 0.5rem 0.9rem;
        border-radius: var(--lm-radius-sm);
        background: var(--lm-accent);
        color: var(--lm-accent-text);
        text-decoration: none;
        font-size: 0.875rem;
        font-weight: 500;
      }
      .notice {
        margin: 0;
        padding: 0.6rem 0.8rem;
        border-radius: var(--lm-radius-sm);
        background: var(--lm-danger-soft);
        font-size: 0.875rem;
      }
      @media (max-width: 759px) {
        .page {
          padding: 1rem 0.75rem 2rem;
        }
        li {
          grid-template-columns: 1fr auto;
          padding: 0.75rem;
        }
        li .icon {
          display: none;
        }
      }
    `,
  ];

  override willUpdate(changed: Map<string, unknown>) {
    if ((changed.has('active') || changed.has('models')) && this.active) void this.measure();
  }

  private async measure() {
    const storage = globalThis.navigator?.storage;
    if (!storage?.estimate) return;
    const [{ usage = 0, quota = 0 }, persisted] = await Promise.all([
      storage.estimate(),
      storage.persisted?.().catch(() => false) ?? Promise.resolve(false),
    ]);
    this.storage = { usage, quota, persisted };
  }

  private async confirmDelete() {
    const record = this.pending;
    if (!record) return;
    this.deleting = true;
    this.error = '';
    try {
      // Through the API, so the engine unloads the model before its files go.
      await this.api.deleteModel(record.id);
      this.dispatchEvent(
        new CustomEvent('models-changed', {
          detail: { deleted: record.id },
          bubbles: true,
          composed: true,
        }),
      );
    } catch (error) {
      this.error = `${record.id} could not be deleted: ${failureText(error)}`;
    } finally {
      this.deleting = false;
      this.pending = undefined;
    }
  }

  private renderStorage() {
    const s = this.storage;
    if (!s || s.quota === 0) return nothing;
    const share = Math.min(1, s.usage / s.quota);
    return html`<div class="storage">
      <div class="label">
        <span id="storage-label">Storage</span>
        <span>${formatBytes(s.usage)} used of ${formatBytes(s.quota)}</span>
      </div>
      <div
        class="bar"
        role="meter"
        aria-labelledby="storage-label"
        aria-valuemin="0"
        aria-valuemax=${s.quota}
        aria-valuenow=${s.usage}
        aria-valuetext="${formatBytes(s.usage)} used of ${formatBytes(s.quota)}"
      >
        <span style="width: ${(share * 100).toFixed(2)}%"></span>
      </div>
      <span class="muted">
        ${
          s.persisted
            ? 'Persistent: the browser keeps these models under storage pressure.'
            : 'Not persistent yet: the browser may evict models when the disk fills up.'
        }
      </span>
    </div>`;
  }

  private renderModel(record: ModelRecord) {
    const g = record.gguf;
    return html`<li class="card" data-model=${record.id}>
      <span class="icon">${icons.models}</span>
      <div>
        <div class="name">
          <h3>${record.id}</h3>
          <span class="badge">${g.quantization}</span>
          ${record.projector ? html`<span class="badge accent">${icons.eye} Vision</span>` : nothing}
          ${
            isEmbeddingOnly(g)
              ? html`<span
                  class="badge accent"
                  title="Serves /v1/embeddings and /api/embed, not chat"
                  >Embedding</span
                >`
              : nothing
          }
        </div>
        <dl class="facts">
          <div>
            <dt>Size</dt>
            <dd>${formatBytes(record.sizeBytes)}</dd>
          </div>
          <div>
            <dt>Architecture</dt>
            <dd>${g.architecture}</dd>
          </div>
          <div>
            <dt>Parameters</dt>
            <dd>${formatParameterCount(g.parameterCount)}</dd>
          </div>
          ${
            g.contextLength
              ? html`<div>
                  <dt>Context</dt>
                  <dd>${g.contextLength.toLocaleString('en')}</dd>
                </div>`
              : nothing
          }
          <div>
            <dt>Last used</dt>
            <dd>
              ${
                record.lastUsedAt === undefined
                  ? 'never'
                  : formatRelativeTime(record.lastUsedAt, Date.now())
              }
            </dd>
          </div>
          <div>
            <dt>Source</dt>
            <dd>${sourceText(record)}</dd>
          </div>
        </dl>
      </div>
      <button
        class="danger"
        type="button"
        aria-label="Delete ${record.id}"
        @click=${() => (this.pending = record)}
      >
        ${icons.trash}<span class="wide">Delete</span>
      </button>
    </li>`;
  }

  override render() {
    const pending = this.pending;
    const total = this.models.reduce((sum, m) => sum + m.sizeBytes, 0);
    return html`<div class="page">
      <header>
        <div>
          <h2>My Models</h2>
          <p>
            ${
              this.models.length === 0
                ? 'Models you download or import are kept in this browser.'
                : `${this.models.length} model${this.models.length === 1 ? '' : 's'}, ${formatBytes(total)} in this browser.`
            }
          </p>
        </div>
        ${this.renderStorage()}
      </header>
      <section class="card import" aria-labelledby="import-heading">
        <h3 id="import-heading">Import a GGUF file</h3>
        <p>
          For a vision model, choose its projector (mmproj) file first. Files are copied into this
          browser's storage.
        </p>
        <lmtab-model-import .store=${this.store}></lmtab-model-import>
      </section>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      ${
        this.models.length === 0
          ? html`<div class="card empty">
              <strong>No models yet</strong>
              <p>Find a model on Hugging Face, or import a file above.</p>
              <a class="button" href="#discover">${icons.discover} Discover models</a>
            </div>`
          : html`<ul aria-label="Stored models">
              ${repeat(
                this.models,
                (m) => m.id,
                (m) => this.renderModel(m),
              )}
            </ul>`
      }
      <lmtab-confirm-dialog
        heading="Delete ${pending?.id ?? ''}?"
        confirm-label="Delete model"
        danger
        ?busy=${this.deleting}
        ?open=${pending !== undefined}
        @cancel=${() => (this.pending = undefined)}
        message=${
          pending
            ? `This frees ${formatBytes(pending.sizeBytes)} in this browser. Chats that used it keep their text; to run it again, download or import it again.`
            : ''
        }
        @confirm=${() => this.confirmDelete()}
      >
      </lmtab-confirm-dialog>
    </div>`;
  }
}

customElements.define('lmtab-models-view', LmtabModelsView);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-models-view': LmtabModelsView;
  }
}
