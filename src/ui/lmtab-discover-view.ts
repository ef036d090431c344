import { LitElement, css, html } from 'lit';
import {
  buildGgufChoices,
  createHubClient,
  hubDownloadRequest,
  hubHeadersFor,
  loadHubSettings,
  saveHubSettings,
} from '../hub/index.js';
import type {
  GgufChoice,
  HubClient,
  HubModelInfo,
  HubModelSummary,
  HubSettings,
} from '../hub/index.js';
import { DownloadManager } from '../store/index.js';
import './lmtab-mlc-catalog.js';
import type { DownloadState, DownloadStore, ModelRecord, ModelStore } from '../store/index.js';
import type { DownloadAction } from './lmtab-download-list.js';
import './lmtab-download-list.js';
import './lmtab-hub-settings.js';
import './lmtab-quantization-picker.js';
import './lmtab-search-results.js';

/**
 * The Discover tab: search the hub's GGUF repositories, pick one and a quantization, download it
 * (with its vision projector) and watch, pause, resume or cancel the downloads. Takes the page's
 * `.store`, and `.downloads` (the page's {@link DownloadManager}) when the page has one; without
 * it the view makes one for its store. Fires `model-downloaded` (detail: the record) when a model
 * is ready.
 */
export class LmtabDiscoverView extends LitElement {
  static override properties = {
    store: { attribute: false },
    downloads: { attribute: false },
    settings: { state: true },
    query: { state: true },
    results: { state: true },
    searching: { state: true },
    searched: { state: true },
    error: { state: true },
    repo: { state: true },
    choices: { state: true },
    loadingRepo: { state: true },
    stored: { state: true },
    free: { state: true },
    states: { state: true },
  };

  declare store: ModelStore | undefined;
  declare downloads: DownloadManager | undefined;
  declare settings: HubSettings;
  declare query: string;
  declare results: HubModelSummary[];
  declare searching: boolean;
  declare searched: boolean;
  declare error: string;
  declare repo: HubModelInfo | undefined;
  declare choices: GgufChoice[];
  declare loadingRepo: boolean;
  declare stored: string[];
  declare free: number | undefined;
  declare states: DownloadState[];

  private subscribed: DownloadManager | undefined;
  private request: AbortController | undefined;
  private readonly onChange = () => {
    this.states = this.subscribed?.list() ?? [];
  };
  private readonly onDownloaded = (event: Event) => {
    const record = (event as CustomEvent<ModelRecord>).detail;
    void this.refreshStorage();
    this.dispatchEvent(
      new CustomEvent<ModelRecord>('model-downloaded', {
        detail: record,
        bubbles: true,
        composed: true,
      }),
    );
  };

  constructor() {
    super();
    this.settings = loadHubSettings();
    this.query = '';
    this.results = [];
    this.searching = false;
    this.searched = false;
    this.error = '';
    this.choices = [];
    this.loadingRepo = false;
    this.stored = [];
    this.states = [];
  }

  static override styles = css`
    :host {
      display: flex;
      flex-direction: column;
      gap: 1rem;
    }
    h2 {
      font-size: 1rem;
      margin: 0 0 0.5rem;
    }
    form {
      display: flex;
      gap: 0.5rem;
    }
    input[type='search'] {
      flex: 1;
      max-width: 28rem;
    }
    .columns {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr));
      gap: 1rem;
      align-items: start;
    }
    .error {
      color: #c92a2a;
      margin: 0;
    }
    .quiet {
      opacity: 0.75;
      font-size: 0.9rem;
    }
  `;

  override connectedCallback() {
    super.connectedCallback();
    this.subscribe(this.downloads);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.subscribe(undefined);
    this.request?.abort();
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('store') && this.downloads === undefined && isDownloadStore(this.store)) {
      const store = this.store;
      this.downloads = new DownloadManager({
        store,
        headers: (url) => hubHeadersFor(url, loadHubSettings()),
      });
    }
    if (this.isConnected) this.subscribe(this.downloads);
  }

  private subscribe(manager: DownloadManager | undefined) {
    if (this.subscribed === manager) return;
    this.subscribed?.removeEventListener('change', this.onChange);
    this.subscribed?.removeEventListener('downloaded', this.onDownloaded);
    this.subscribed = manager;
    if (manager === undefined) return;
    manager.addEventListener('change', this.onChange);
    manager.addEventListener('downloaded', this.onDownloaded);
    void manager.start();
    this.onChange();
  }

  private client(): HubClient {
    return createHubClient({ endpoint: this.settings.endpoint, token: this.settings.token });
  }

  /** Runs one hub call at a time; a newer one aborts the older. */
  private async hubCall(work: (client: HubClient, signal: AbortSignal) => Promise<void>) {
    this.request?.abort();
    const controller = new AbortController();
    this.request = controller;
    this.error = '';
    try {
      await work(this.client(), controller.signal);
    } catch (error) {
      if (!controller.signal.aborted) {
        this.error = error instanceof Error ? error.message : String(error);
      }
    }
  }

  private onSettings(event: CustomEvent<HubSettings>) {
    this.settings = event.detail;
    saveHubSettings(event.detail);
  }

  private async search(event: Event) {
    event.preventDefault();
    const input = this.renderRoot.querySelector<HTMLInputElement>('input[type="search"]');
    this.query = input?.value ?? '';
    this.searching = true;
    this.repo = undefined;
    this.choices = [];
    await this.hubCall(async (client, signal) => {
      this.results = await client.search(this.query, { limit: 30, signal });
      this.searched = true;
    });
    this.searching = false;
  }

  private async selectRepo(event: CustomEvent<string>) {
    this.loadingRepo = true;
    await this.hubCall(async (client, signal) => {
      const info = await client.modelInfo(event.detail, { signal });
      const files = await client.listFiles(info.id, { revision: info.sha, signal });
      this.repo = info;
      this.choices = buildGgufChoices(files).choices;
      await this.refreshStorage();
    });
    this.loadingRepo = false;
  }

  private async refreshStorage() {
    const records = (await this.store?.list()) ?? [];
    this.stored = records.flatMap((record) =>
      record.source.kind === 'hub' && record.source.repo === this.repo?.id
        ? [record.source.quantization]
        : [],
    );
    const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
    this.free =
      estimate?.quota === undefined || estimate.usage === undefined
        ? undefined
        : Math.max(0, estimate.quota - estimate.usage);
  }

  private download(event: CustomEvent<GgufChoice>) {
    const repo = this.repo;
    if (repo === undefined || this.downloads === undefined) return;
    this.error = '';
    try {
      this.downloads.download(
        hubDownloadRequest(this.client(), {
          repo: repo.id,
          revision: repo.sha,
          choice: event.detail,
        }),
      );
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    }
  }

  private async act(event: CustomEvent<{ id: string; action: DownloadAction }>) {
    const manager = this.downloads;
    if (manager === undefined) return;
    const { id, action } = event.detail;
    if (action === 'pause') await manager.pause(id);
    else if (action === 'resume') await manager.resume(id);
    else if (action === 'cancel') await manager.cancel(id);
    else manager.dismiss(id);
    await this.refreshStorage();
  }

  private renderRepo() {
    if (this.loadingRepo) return html`<p class="quiet" role="status">Loading files…</p>`;
    if (this.repo === undefined) return null;
    return html`
      <section aria-label="Quantizations">
        ${
          this.repo.gated && this.settings.token === undefined
            ? html`<p class="quiet">${this.repo.id} is gated: set a hub token to download it.</p>`
            : null
        }
        <lmtab-quantization-picker
          .repo=${this.repo.id}
          .choices=${this.choices}
          .stored=${this.stored}
          .free=${this.free}
          @download-choice=${this.download}
        ></lmtab-quantization-picker>
      </section>
    `;
  }

  override render() {
    return html`
      <lmtab-hub-settings
        .settings=${this.settings}
        @hub-settings-change=${this.onSettings}
      ></lmtab-hub-settings>
      <form role="search" @submit=${this.search}>
        <input
          type="search"
          aria-label="Search models"
          placeholder="Search GGUF models, e.g. LFM2"
          .value=${this.query}
        />
        <button type="submit" ?disabled=${this.searching}>Search</button>
      </form>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : null}
      <div class="columns">
        <section aria-label="Models">
          ${
            this.searched && this.results.length === 0
              ? html`<p class="quiet">No GGUF models match “${this.query}”.</p>`
              : html`<lmtab-search-results
                  .results=${this.results}
                  .selected=${this.repo?.id ?? ''}
                  @repo-select=${this.selectRepo}
                ></lmtab-search-results>`
          }
        </section>
        ${this.renderRepo()}
      </div>
      <section aria-label="Downloads panel">
        <h2>Downloads</h2>
        <lmtab-download-list
          .downloads=${this.states}
          @download-action=${this.act}
        ></lmtab-download-list>
      </section>
      <lmtab-mlc-catalog
        .store=${isDownloadStore(this.store) ? this.store : undefined}
      ></lmtab-mlc-catalog>
    `;
  }
}

function isDownloadStore(store: ModelStore | undefined): store is ModelStore & DownloadStore {
  return (
    store !== undefined &&
    'writeChunk' in store &&
    'putRecord' in store &&
    'readFile' in store &&
    'partials' in store
  );
}

customElements.define('lmtab-discover-view', LmtabDiscoverView);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-discover-view': LmtabDiscoverView;
  }
}
