import { LitElement, css, html, nothing } from 'lit';
import type { AppConfig } from '@mlc-ai/web-llm';
import prebuiltAppConfig from 'virtual:web-llm-catalog';
import { mlcCatalog, mlcUnsupportedReason } from '../../engine/index.js';
import type { MlcCatalogEntry } from '../../engine/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { createApiClient } from '../client/api-client.js';
import { downloadMlcModel, formatBytes, isComplete } from '../../store/index.js';
import type { ChunkWriter, ModelRecord, ModelStore } from '../../store/index.js';

/** A WebGPU adapter and its features; none when the browser offers no adapter. */
export interface AdapterOnOffer {
  adapter?: string;
  features?: string[];
}

/**
 * The adapter the engine worker found when it probed WebGPU (`GET /api/lmtab/engine`). Asking the
 * engine rather than `navigator.gpu` keeps to one probe per page: on a machine without an adapter
 * each `requestAdapter()` prints Chromium's "No available adapters." warning.
 */
export async function adapterOfEngine(api = createApiClient()): Promise<AdapterOnOffer> {
  try {
    const { gpu } = await api.engineStatus();
    return gpu ? { adapter: gpu.adapter, features: gpu.features } : {};
  } catch {
    // No engine answers (yet): no catalog rather than one that cannot run.
    return {};
  }
}

/**
 * web-llm's catalog as "WebGPU (MLC)" models for Discover, when the browser gives a WebGPU adapter
 * (web-llm has no CPU path; without one it says so); entries the adapter cannot run (f16 models
 * without `shader-f16`) are folded under their count, each saying why. Downloads go into lmtab's store, with progress here; event
 * `model-downloaded` (detail: the record) when one is stored.
 */
export class LmtabMlcCatalog extends LitElement {
  static override properties = {
    store: { attribute: false },
    appConfig: { attribute: false },
    probe: { attribute: false },
    capabilities: { state: true },
    stored: { state: true },
    progress: { state: true },
    errors: { state: true },
  };

  /** Where downloads go. */
  declare store: (ModelStore & ChunkWriter) | undefined;
  /** The catalog; default web-llm's `prebuiltAppConfig` (tests give one on a fake hub). */
  declare appConfig: AppConfig;
  /** The WebGPU adapter on offer; default the engine's answer (see {@link adapterOfEngine}). */
  declare probe: () => Promise<AdapterOnOffer>;
  declare capabilities: AdapterOnOffer | undefined;
  declare stored: Set<string>;
  declare progress: Map<string, string>;
  declare errors: Map<string, string>;
  private downloads = new Map<string, AbortController>();

  constructor() {
    super();
    this.appConfig = prebuiltAppConfig;
    this.probe = adapterOfEngine;
    this.stored = new Set();
    this.progress = new Map();
    this.errors = new Map();
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
      }
      .note {
        font-size: 0.85rem;
        color: var(--lm-muted);
        margin: 0 0 0.75rem;
        line-height: 1.45;
      }
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(min(100%, 18rem), 1fr));
        gap: 0.6rem;
      }
      li {
        display: flex;
        flex-wrap: wrap;
        gap: 0.4rem 0.5rem;
        align-items: center;
        padding: 0.7rem 0.85rem;
        min-width: 0;
      }
      .name {
        flex: 1 1 100%;
        font-weight: 600;
        font-size: 0.86rem;
        overflow-wrap: anywhere;
      }
      .meta,
      .progress {
        font-size: 0.78rem;
        color: var(--lm-muted);
      }
      li > button {
        margin-left: auto;
      }
      .error {
        flex-basis: 100%;
        font-size: 0.8rem;
        margin: 0;
        overflow-wrap: anywhere;
      }
      details {
        margin-top: 0.9rem;
      }
      summary {
        cursor: pointer;
        font-size: 0.88rem;
        color: var(--lm-muted);
        padding: 0.3rem 0;
      }
      summary:focus-visible {
        outline: 2px solid var(--lm-focus);
        outline-offset: 2px;
        border-radius: 4px;
      }
      details ul {
        margin-top: 0.5rem;
      }
      details li {
        opacity: 0.8;
      }
    `,
  ];

  override connectedCallback() {
    super.connectedCallback();
    void this.start();
  }

  override updated(changed: Map<string, unknown>) {
    // The app hands its store over once it is open, after this element started.
    if (changed.has('store') && this.store) void this.refreshStored();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    for (const controller of this.downloads.values()) controller.abort();
  }

  private async start() {
    const capabilities = await this.probe();
    this.capabilities = capabilities;
    await this.refreshStored();
  }

  private async refreshStored() {
    const records = (await this.store?.list()) ?? [];
    this.stored = new Set(records.filter(isComplete).map((record) => record.id));
  }

  private setProgress(id: string, text: string | undefined) {
    const next = new Map(this.progress);
    if (text === undefined) next.delete(id);
    else next.set(id, text);
    this.progress = next;
  }

  private setError(id: string, text: string | undefined) {
    const next = new Map(this.errors);
    if (text === undefined) next.delete(id);
    else next.set(id, text);
    this.errors = next;
  }

  private async download(entry: MlcCatalogEntry) {
    if (!this.store || this.downloads.has(entry.catalogId)) return;
    const controller = new AbortController();
    this.downloads.set(entry.catalogId, controller);
    this.setError(entry.catalogId, undefined);
    this.setProgress(entry.catalogId, 'Starting download…');
    try {
      let record: ModelRecord | undefined;
      const steps = downloadMlcModel(this.store, entry, { signal: controller.signal });
      for await (const step of steps) {
        if (step.type === 'progress') {
          this.setProgress(
            entry.catalogId,
            `Downloading ${step.file}: ${formatBytes(step.bytes)} of ${formatBytes(step.total)}`,
          );
        } else {
          record = step.record;
        }
      }
      this.setProgress(entry.catalogId, undefined);
      await this.refreshStored();
      this.dispatchEvent(
        new CustomEvent('model-downloaded', { detail: record, bubbles: true, composed: true }),
      );
    } catch (error) {
      this.setProgress(entry.catalogId, undefined);
      // A cancelled download keeps its finished files: downloading again resumes.
      if (!controller.signal.aborted) {
        this.setError(entry.catalogId, error instanceof Error ? error.message : String(error));
      }
    } finally {
      this.downloads.delete(entry.catalogId);
    }
  }

  private renderEntry(entry: MlcCatalogEntry, features: ReadonlySet<string>) {
    const unsupported = mlcUnsupportedReason(entry, features);
    const progress = this.progress.get(entry.catalogId);
    const error = this.errors.get(entry.catalogId);
    const size = entry.vramMB === undefined ? '' : `${formatBytes(entry.vramMB * 1e6)} GPU memory`;
    let action;
    if (this.stored.has(entry.catalogId)) action = html`<span class="meta">Downloaded</span>`;
    else if (unsupported) action = html`<span class="meta">Not on this GPU: ${unsupported}</span>`;
    else if (progress) {
      action = html`<span class="progress" role="status">${progress}</span>
        <button
          type="button"
          class="small"
          aria-label=${`Cancel download of ${entry.catalogId}`}
          @click=${() => this.downloads.get(entry.catalogId)?.abort()}
        >
          Cancel
        </button>`;
    } else {
      action = html`<button
        type="button"
        class="small primary"
        aria-label=${`Download ${entry.catalogId}`}
        @click=${() => this.download(entry)}
      >
        Download
      </button>`;
    }
    return html`<li class="card" data-model=${entry.catalogId}>
      <span class="name">${entry.catalogId}</span>
      <span class="badge">WebGPU (MLC)</span>
      ${entry.vision ? html`<span class="badge accent">Vision</span>` : nothing}
      <span class="meta">${size}</span>
      ${action} ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
    </li>`;
  }

  override render() {
    const capabilities = this.capabilities;
    if (capabilities === undefined) {
      return html`<p class="note" role="status">Looking for a WebGPU adapter…</p>`;
    }
    if (capabilities.adapter === undefined) {
      return html`<p class="note" data-testid="no-webgpu">
        MLC models run on WebGPU only, and this browser offers no WebGPU adapter. GGUF models run
        here without one.
      </p>`;
    }
    const features = new Set(capabilities.features ?? []);
    const entries = mlcCatalog(this.appConfig);
    const runnable = entries.filter((e) => !mlcUnsupportedReason(e, features));
    const other = entries.filter((e) => mlcUnsupportedReason(e, features));
    return html`<section aria-label="WebGPU (MLC) models">
      <p class="note">
        Models compiled by MLC from web-llm's catalog; they run on this GPU
        (${capabilities.adapter}) only. Untested: lmtab's tests have never generated with one (no
        MLC model can be had where they run), so treat their answers as unverified.
      </p>
      <ul aria-label="MLC models for this GPU">
        ${runnable.map((entry) => this.renderEntry(entry, features))}
      </ul>
      ${
        other.length === 0
          ? nothing
          : html`<details>
              <summary>
                ${other.length} more model${other.length === 1 ? '' : 's'} cannot run on this GPU
              </summary>
              <ul aria-label="MLC models this GPU cannot run">
                ${other.map((entry) => this.renderEntry(entry, features))}
              </ul>
            </details>`
      }
    </section>`;
  }
}

customElements.define('lmtab-mlc-catalog', LmtabMlcCatalog);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-mlc-catalog': LmtabMlcCatalog;
  }
}
