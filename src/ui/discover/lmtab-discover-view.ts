import { LitElement, html, nothing } from 'lit';
import {
  buildGgufChoices,
  createHubClient,
  hubHeadersFor,
  loadHubSettings,
  saveHubSettings,
} from '../../hub/index.js';
import type {
  GgufChoice,
  HubClient,
  HubModelInfo,
  HubModelSummary,
  HubSettings,
} from '../../hub/index.js';
import { DownloadManager, hubDownloadRequest, isHubPull } from '../../store/index.js';
import type { DownloadState, DownloadStore, ModelRecord, ModelStore } from '../../store/index.js';
import { cleanModelCard } from './clean-model-card.js';
import { controlStyles, pageStyles } from '../shared/control-styles.js';
import { readDeviceFacts, type DeviceFacts } from './device-fit.js';
import { hubProblem, type HubProblem } from './hub-problem.js';
import { icons } from '../shared/icons.js';
import type { DownloadAction } from './lmtab-download-list.js';
import type { FeaturedDownload } from './lmtab-featured-models.js';
import type { LmtabHubSettings } from './lmtab-hub-settings.js';
import './lmtab-download-list.js';
import './lmtab-featured-models.js';
import './lmtab-hub-problem.js';
import './lmtab-hub-settings.js';
import './lmtab-mlc-catalog.js';
import './lmtab-repo-details.js';
import './lmtab-search-results.js';
import { discoverViewStyles } from './discover-view-styles.js';

/** Which engine's models the browse section lists. */
type EngineFilter = 'gguf' | 'mlc';

/**
 * The Discover tab: featured LFM2 picks that download in one click and chat right there, then hub
 * search (result cards, a repository's quantizations and model card), web-llm's MLC catalog behind
 * an engine filter, the downloads, and the hub endpoint and token. Takes the page's `.store`,
 * `.downloads` (the page's {@link DownloadManager}; without one the view makes one for its store)
 * and `.gpu` (for whether a download can run here).
 * Fires `model-downloaded` (detail: the record) when a model is ready.
 */
export class LmtabDiscoverView extends LitElement {
  static override properties = {
    store: { attribute: false },
    downloads: { attribute: false },
    models: { attribute: false },
    active: { type: Boolean },
    gpu: { attribute: false },
    settings: { state: true },
    query: { state: true },
    results: { state: true },
    searching: { state: true },
    searched: { state: true },
    problem: { state: true },
    repo: { state: true },
    choices: { state: true },
    card: { state: true },
    loadingRepo: { state: true },
    stored: { state: true },
    facts: { state: true },
    states: { state: true },
    engine: { state: true },
  };

  declare store: ModelStore | undefined;
  declare downloads: DownloadManager | undefined;
  /** The stored models (complete ones). */
  declare models: ModelRecord[];
  /** Whether the tab shows: the featured cards ask the hub the first time it does. */
  declare active: boolean;
  /** Whether the engine has a WebGPU adapter llama.cpp can use (`engineGpu`); undefined until known. */
  declare gpu: boolean | undefined;
  declare settings: HubSettings;
  declare query: string;
  declare results: HubModelSummary[];
  declare searching: boolean;
  declare searched: boolean;
  /** The last hub call's failure, shown with a Retry. */
  declare problem: HubProblem | undefined;
  declare repo: HubModelInfo | undefined;
  declare choices: GgufChoice[];
  /** The open repository's model card (see `lmtab-repo-details`). */
  declare card: string | undefined;
  declare loadingRepo: boolean;
  declare stored: string[];
  declare facts: DeviceFacts;
  declare states: DownloadState[];
  declare engine: EngineFilter;

  private subscribed: DownloadManager | undefined;
  private request: AbortController | undefined;
  private hubClient: HubClient | undefined;
  private retryAction: (() => Promise<void>) | undefined;
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
    this.models = [];
    this.active = false;
    this.query = '';
    this.results = [];
    this.searching = false;
    this.searched = false;
    this.choices = [];
    this.loadingRepo = false;
    this.stored = [];
    this.facts = {};
    this.states = [];
    this.engine = 'gguf';
  }

  static override styles = [controlStyles, pageStyles, discoverViewStyles];

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
    if (changed.has('settings')) {
      try {
        this.hubClient = createHubClient({
          endpoint: this.settings.endpoint,
          token: this.settings.token,
        });
      } catch (error) {
        // A malformed endpoint: say so where the hub's problems show.
        this.hubClient = undefined;
        this.problem = hubProblem(error);
      }
    }
    if (changed.has('active') && this.active) void this.refreshStorage();
    if (changed.has('gpu')) this.facts = { ...this.facts, gpu: this.gpu };
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

  /** The hub client of the current settings (one per settings, so the featured cards can tell). */
  private client(): HubClient | undefined {
    return this.hubClient;
  }

  /** Runs one hub call at a time; a newer one aborts the older. A failure shows with a Retry. */
  private async hubCall(work: (client: HubClient, signal: AbortSignal) => Promise<void>) {
    this.request?.abort();
    const controller = new AbortController();
    this.request = controller;
    this.problem = undefined;
    this.retryAction = () => this.hubCall(work);
    try {
      const client = this.client();
      if (client === undefined) return;
      await work(client, controller.signal);
    } catch (error) {
      if (!controller.signal.aborted) {
        this.problem = hubProblem(error, globalThis.navigator?.onLine ?? true);
      }
    }
  }

  private async retry() {
    await this.retryAction?.();
  }

  private onSettings(event: CustomEvent<HubSettings>) {
    this.problem = undefined;
    this.settings = event.detail;
    saveHubSettings(event.detail);
  }

  private openSettings() {
    const details = this.renderRoot.querySelector<HTMLDetailsElement>('details.settings');
    if (details) details.open = true;
    details?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    this.renderRoot.querySelector<LmtabHubSettings>('lmtab-hub-settings')?.focusToken();
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
    const id = event.detail;
    this.loadingRepo = true;
    await this.hubCall(async (client, signal) => {
      const info = await client.modelInfo(id, { signal });
      const files = await client.listFiles(info.id, { revision: info.sha, signal });
      this.repo = info;
      this.choices = buildGgufChoices(files).choices;
      this.card = undefined;
      await this.refreshStorage();
      void this.loadCard(client, info, signal);
      await this.updateComplete;
      this.renderRoot
        .querySelector('lmtab-repo-details')
        ?.shadowRoot?.querySelector<HTMLElement>('#repo-heading')
        ?.focus();
    });
    this.loadingRepo = false;
  }

  private async loadCard(client: HubClient, info: HubModelInfo, signal: AbortSignal) {
    try {
      const text = await client.modelCard(info.id, { revision: info.sha, signal });
      if (this.repo === info) this.card = cleanModelCard(text ?? '');
    } catch (error) {
      if (this.repo === info && !signal.aborted) {
        this.card = `*The model card could not be read: ${hubProblem(error).detail}*`;
      }
    }
  }

  private closeRepo() {
    this.repo = undefined;
    void this.updateComplete.then(() =>
      this.renderRoot
        .querySelector('lmtab-search-results')
        ?.shadowRoot?.querySelector<HTMLElement>('button[aria-pressed="true"], button')
        ?.focus(),
    );
  }

  private async refreshStorage() {
    const records = (await this.store?.list()) ?? [];
    this.stored = records.flatMap((record) =>
      record.source.kind === 'hub' && isHubPull(record, this.repo?.id ?? '')
        ? [record.source.quantization]
        : [],
    );
    this.facts = { ...(await readDeviceFacts()), gpu: this.gpu };
  }

  private startDownload(repo: string, revision: string | undefined, choice: GgufChoice) {
    const client = this.client();
    if (client === undefined || this.downloads === undefined) return;
    this.problem = undefined;
    try {
      this.downloads.download(hubDownloadRequest(client, { repo, revision, choice }));
    } catch (error) {
      this.problem = hubProblem(error);
    }
  }

  private download(event: CustomEvent<GgufChoice>) {
    const repo = this.repo;
    if (repo !== undefined) this.startDownload(repo.id, repo.sha, event.detail);
  }

  private featuredDownload(event: CustomEvent<FeaturedDownload>) {
    const { repo, revision, choice } = event.detail;
    this.startDownload(repo, revision, choice);
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

  private onEngineKey(event: KeyboardEvent) {
    if (!['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(event.key)) return;
    event.preventDefault();
    this.engine = this.engine === 'gguf' ? 'mlc' : 'gguf';
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLElement>(`[data-engine="${this.engine}"]`)?.focus(),
    );
  }

  private renderEngineFilter() {
    const option = (id: EngineFilter, label: string) =>
      html`<button
        role="radio"
        data-engine=${id}
        aria-checked=${this.engine === id ? 'true' : 'false'}
        tabindex=${this.engine === id ? 0 : -1}
        @click=${() => (this.engine = id)}
      >
        ${label}
      </button>`;
    return html`<div
      class="segmented"
      role="radiogroup"
      aria-label="Engine"
      @keydown=${this.onEngineKey}
    >
      ${option('gguf', 'GGUF (wllama)')} ${option('mlc', 'WebGPU (MLC)')}
    </div>`;
  }

  private renderGguf() {
    return html`
      <form role="search" @submit=${this.search}>
        <input
          type="search"
          aria-label="Search models"
          placeholder="Search GGUF models on the hub, e.g. LFM2"
          .value=${this.query}
        />
        <button class="primary" type="submit" ?disabled=${this.searching}>
          ${icons.discover} Search
        </button>
      </form>
      <lmtab-hub-problem
        id="search-problem"
        .problem=${this.problem}
        ?busy=${this.searching || this.loadingRepo}
        @retry=${this.retry}
        @hub-settings-open=${this.openSettings}
      ></lmtab-hub-problem>
      ${this.loadingRepo ? html`<p class="quiet" role="status">Loading files…</p>` : nothing}
      ${
        this.repo !== undefined
          ? html`<lmtab-repo-details
              .info=${this.repo}
              .choices=${this.choices}
              .stored=${this.stored}
              .facts=${this.facts}
              .card=${this.card}
              ?needs-token=${this.repo.gated && this.settings.token === undefined}
              @download-choice=${this.download}
              @repo-close=${this.closeRepo}
            ></lmtab-repo-details>`
          : this.searched && this.results.length === 0
            ? html`<p class="quiet">No GGUF models match “${this.query}”.</p>`
            : html`<lmtab-search-results
                .results=${this.results}
                @repo-select=${this.selectRepo}
              ></lmtab-search-results>`
      }
    `;
  }

  override render() {
    const client = this.hubClient;
    return html`<div class="page">
      <header>
        <h2>Discover</h2>
        <p>Download a model into this browser and run it here. Start with an LFM2 pick.</p>
      </header>
      <section aria-labelledby="featured-heading">
        <div class="section-head">
          <div>
            <h3 id="featured-heading">LFM2 picks</h3>
            <p>Liquid AI's small models, built to run on devices. One click downloads Q4_K_M.</p>
          </div>
        </div>
        <lmtab-featured-models
          .client=${client}
          ?active=${this.active}
          .downloads=${this.states}
          .models=${this.models}
          .facts=${this.facts}
          @featured-download=${this.featuredDownload}
          @download-action=${this.act}
          @hub-settings-open=${this.openSettings}
        ></lmtab-featured-models>
      </section>
      ${
        this.states.length > 0
          ? html`<section aria-labelledby="downloads-heading">
              <div class="section-head">
                <h3 id="downloads-heading">Downloads</h3>
              </div>
              <lmtab-download-list
                .downloads=${this.states}
                @download-action=${this.act}
              ></lmtab-download-list>
            </section>`
          : nothing
      }
      <section aria-labelledby="browse-heading">
        <div class="section-head">
          <div>
            <h3 id="browse-heading">More models</h3>
            <p>
              ${
                this.engine === 'gguf'
                  ? 'Search the Hugging Face hub for GGUF models; they run on any device.'
                  : "web-llm's catalog of MLC models; they need WebGPU."
              }
            </p>
          </div>
          ${this.renderEngineFilter()}
        </div>
        <div ?hidden=${this.engine !== 'gguf'}>${this.renderGguf()}</div>
        <div ?hidden=${this.engine !== 'mlc'}>
          <lmtab-mlc-catalog
            .store=${isDownloadStore(this.store) ? this.store : undefined}
          ></lmtab-mlc-catalog>
        </div>
      </section>
      <details class="card settings">
        <summary>Hub settings</summary>
        <p>Where models come from, and an access token for gated models. Kept in this browser.</p>
        <lmtab-hub-settings
          .settings=${this.settings}
          @hub-settings-change=${this.onSettings}
        ></lmtab-hub-settings>
      </details>
    </div>`;
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
