import { LitElement, css, html, nothing } from 'lit';
import type { AppConfig } from '@mlc-ai/web-llm';
import prebuiltAppConfig from 'virtual:web-llm-catalog';
import { mlcCatalog, mlcUnsupportedReason } from '../engine/index.js';
import type { MlcCatalogEntry } from '../engine/index.js';
import { fetchEngineStatus } from './fetch-engine-status.js';
import { downloadMlcModel, formatBytes, isComplete } from '../store/index.js';
import type { ChunkWriter, ModelRecord, ModelStore } from '../store/index.js';

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
export async function adapterOfEngine(): Promise<AdapterOnOffer> {
  try {
    const { gpu } = await fetchEngineStatus();
    return gpu ? { adapter: gpu.adapter, features: gpu.features } : {};
  } catch {
    // No engine answers (yet): no catalog rather than one that cannot run.
    return {};
  }
}

/**
 * web-llm's catalog as "WebGPU (MLC)" models for Discover: shown only when the browser gives a
 * WebGPU adapter (web-llm has no CPU path); entries the adapter cannot run (f16 models without
 * `shader-f16`) say why. Downloads go into lmtab's store, with progress here; event
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

  static override styles = css`
    :host {
      display: block;
    }
    :host([hidden]) {
      display: none;
    }
    h2 {
      font-size: 1rem;
      margin: 0 0 0.25rem;
    }
    .note {
      font-size: 0.85rem;
      opacity: 0.75;
      margin: 0 0 0.5rem;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 0.35rem;
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: baseline;
    }
    .name {
      font-weight: 600;
    }
    .badge {
      font-size: 0.75rem;
      padding: 0 0.4rem;
      border-radius: 0.25rem;
      background: #edf2ff;
      color: #364fc7;
    }
    .meta,
    .progress {
      font-size: 0.85rem;
      opacity: 0.8;
    }
    .error {
      color: #c92a2a;
      flex-basis: 100%;
      font-size: 0.85rem;
    }
  `;

  override connectedCallback() {
    super.connectedCallback();
    // Hidden until an adapter is found (a constructor may not set attributes).
    this.hidden = this.capabilities?.adapter === undefined;
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
    this.hidden = capabilities.adapter === undefined;
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
          aria-label=${`Cancel download of ${entry.catalogId}`}
          @click=${() => this.downloads.get(entry.catalogId)?.abort()}
        >
          Cancel
        </button>`;
    } else {
      action = html`<button
        type="button"
        aria-label=${`Download ${entry.catalogId}`}
        @click=${() => this.download(entry)}
      >
        Download
      </button>`;
    }
    return html`<li data-model=${entry.catalogId}>
      <span class="name">${entry.catalogId}</span>
      <span class="badge">WebGPU (MLC)</span>
      ${entry.vision ? html`<span class="badge">vision</span>` : nothing}
      <span class="meta">${size}</span>
      ${action} ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
    </li>`;
  }

  override render() {
    const capabilities = this.capabilities;
    if (capabilities?.adapter === undefined) return nothing;
    const features = new Set(capabilities.features ?? []);
    return html`<section aria-label="WebGPU (MLC) models">
      <h2>WebGPU (MLC)</h2>
      <p class="note">
        Models compiled by MLC from web-llm's catalog; they run on this GPU
        (${capabilities.adapter}) only.
      </p>
      <ul>
        ${mlcCatalog(this.appConfig).map((entry) => this.renderEntry(entry, features))}
      </ul>
    </section>`;
  }
}

customElements.define('lmtab-mlc-catalog', LmtabMlcCatalog);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-mlc-catalog': LmtabMlcCatalog;
  }
}
