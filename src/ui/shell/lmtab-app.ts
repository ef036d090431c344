import { LitElement, html, nothing, type TemplateResult } from 'lit';
import type { EngineHostHandle } from '../../bridge/index.js';
import {
  isComplete,
  readProjectorMedia,
  type DownloadManager,
  type DownloadState,
  type ModelRecord,
  type ModelStore,
  type ProjectorMedia,
} from '../../store/index.js';
import { controlStyles } from '../shared/control-styles.js';
import type { ConversationStore } from '../chat/conversation-store.js';
import { engineGpu } from '../discover/device-fit.js';
import type { EngineStatusBody } from '../../api/index.js';
import { createApiClient } from '../client/api-client.js';
import { failureText } from '../client/failure-text.js';
import { icons } from '../shared/icons.js';
import '../chat/lmtab-chat-view.js';
import '../developer/lmtab-developer-view.js';
import '../discover/lmtab-discover-view.js';
import '../models/lmtab-models-view.js';
import type { RelayServer } from '../developer/relay-server.js';
import './lmtab-update-banner.js';
import type { UpdateState } from './lmtab-update-banner.js';
import { appStyles } from './app-styles.js';

/** The app's tabs, in LM Studio's order; the id is the URL hash. */
const tabs = [
  { id: 'chat', label: 'Chat', icon: icons.chat },
  { id: 'developer', label: 'Developer', icon: icons.developer },
  { id: 'models', label: 'My Models', icon: icons.models },
  { id: 'discover', label: 'Discover', icon: icons.discover },
] as const;

/** One of the app's tabs. */
export type TabId = (typeof tabs)[number]['id'];

function tabFromHash(hash: string): TabId | undefined {
  const id = hash.replace(/^#\/?/, '');
  return tabs.find((t) => t.id === id)?.id;
}

/** Events after which the list of stored models is read again. */
const modelEvents = ['model-imported', 'model-downloaded', 'models-changed'];

/**
 * The app shell: four tabs (Chat, Developer, My Models, Discover) with the selected one in the URL
 * hash, the engine's compute path in the header, and the light and dark themes. `main.ts` sets
 * `store`, `engineHost` and `conversations`, then `ready`.
 */
export class LmtabApp extends LitElement {
  static override properties = {
    store: { attribute: false },
    downloads: { attribute: false },
    engineHost: { attribute: false },
    conversations: { attribute: false },
    relayServer: { attribute: false },
    ready: { type: Boolean },
    fatal: { type: String },
    host: { type: Boolean, attribute: 'data-engine-host' },
    updateState: { attribute: false },
    models: { state: true },
    media: { state: true },
    engine: { state: true },
    engineError: { state: true },
    modelsError: { state: true },
    tab: { state: true },
    downloading: { state: true },
  };

  /** The page's model store. */
  declare store: ModelStore | undefined;
  /** The page's download manager (Discover). */
  declare downloads: DownloadManager | undefined;
  /** This tab's place in the engine host election. */
  declare engineHost: EngineHostHandle | undefined;
  /** Where the Chat tab saves conversations. */
  declare conversations: ConversationStore | undefined;
  /** Set once the service worker controls the page and the parts above are set. */
  /** This tab's link to the relay, when the page is served by one. */
  declare relayServer: RelayServer | undefined;
  declare ready: boolean;
  /** A reason the app cannot run at all. */
  declare fatal: string;
  /** Whether this tab runs the engine (the `data-engine-host` attribute `main.ts` sets). */
  declare host: boolean;
  declare models: ModelRecord[];
  /** What each stored model's projector adds (images, hearing, speech), by model id. */
  declare media: Record<string, ProjectorMedia>;
  declare engine: EngineStatusBody | undefined;
  declare engineError: string;
  /** Why the stored models could not be listed. */
  declare modelsError: string;
  declare tab: TabId;
  /** Downloads in progress, for the header's indicator. */
  declare downloading: DownloadState[];
  private watched: DownloadManager | undefined;
  private readonly onDownloadsChange = () => {
    this.downloading = (this.watched?.list() ?? []).filter(
      (d) => d.status === 'downloading' || d.status === 'retrying',
    );
  };
  private readonly onHashChange = () => {
    const tab = tabFromHash(location.hash);
    if (tab) this.tab = tab;
  };
  /** A new version of the app waiting or active, shown by the update banner. */
  declare updateState: UpdateState;
  /** The page's one client of its own API, handed to the tabs. */
  private readonly api = createApiClient();

  constructor() {
    super();
    this.ready = false;
    this.fatal = '';
    this.host = false;
    this.updateState = '';
    this.models = [];
    this.media = {};
    this.engineError = '';
    this.modelsError = '';
    this.downloading = [];
    this.tab = tabFromHash(globalThis.location?.hash ?? '') ?? 'chat';
    for (const type of modelEvents) this.addEventListener(type, () => void this.refreshModels());
  }

  static override styles = [controlStyles, appStyles];

  override connectedCallback() {
    super.connectedCallback();
    addEventListener('hashchange', this.onHashChange);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    removeEventListener('hashchange', this.onHashChange);
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('downloads') && this.watched !== this.downloads) {
      this.watched?.removeEventListener('change', this.onDownloadsChange);
      this.watched = this.downloads;
      this.watched?.addEventListener('change', this.onDownloadsChange);
      this.onDownloadsChange();
    }
    if (changed.has('ready') && this.ready) {
      void this.refreshModels();
      void this.refreshEngine();
    }
  }

  private async refreshModels() {
    try {
      this.models = (await this.store?.list()) ?? [];
      this.modelsError = '';
      void this.refreshMedia(this.models);
    } catch (error) {
      this.modelsError = `The stored models could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /**
   * Reads the projector of each complete model not read yet (its header only), keyed by the
   * record's id and creation, so that a model deleted and stored again under its name is read
   * again, and a deleted one drops out.
   */
  private async refreshMedia(models: ModelRecord[]) {
    const media: Record<string, ProjectorMedia> = {};
    for (const record of models) {
      if (record.projector === undefined || !isComplete(record)) continue;
      const key = `${record.id}@${record.createdAt}`;
      let read = this.mediaRead.get(key);
      if (read === undefined) {
        try {
          const { projector } = await this.store!.open(record.id);
          if (projector === undefined) continue;
          read = await readProjectorMedia(projector);
          this.mediaRead.set(key, read);
        } catch {
          // Unreadable now (a download finishing): the label waits for the next refresh.
          continue;
        }
      }
      media[record.id] = read;
    }
    this.media = media;
  }

  /** Projector headers read so far, by record id and creation time. */
  private readonly mediaRead = new Map<string, ProjectorMedia>();

  private async refreshEngine() {
    try {
      this.engine = await this.api.engineStatus();
      this.engineError = '';
    } catch (error) {
      this.engineError = failureText(error);
    }
  }

  private select(tab: TabId, focus = false) {
    this.tab = tab;
    history.replaceState(history.state, '', `#${tab}`);
    // Last-used times and downloads may have changed while another tab showed.
    if (this.ready && (tab === 'chat' || tab === 'models')) void this.refreshModels();
    if (focus) {
      void this.updateComplete.then(() =>
        this.renderRoot.querySelector<HTMLElement>(`#tab-${tab}`)?.focus(),
      );
    }
  }

  private onTabKey(event: KeyboardEvent) {
    const index = tabs.findIndex((t) => t.id === this.tab);
    const moves: Record<string, number> = {
      ArrowRight: index + 1,
      ArrowDown: index + 1,
      ArrowLeft: index - 1,
      ArrowUp: index - 1,
      Home: 0,
      End: tabs.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    this.select(tabs[(next + tabs.length) % tabs.length]!.id, true);
  }

  private engineText(): string {
    const e = this.engine;
    if (!e) return this.engineError ? 'Engine unavailable' : 'Engine starting…';
    const where =
      e.backend === 'webgpu'
        ? `WebGPU (${e.adapter ?? 'adapter'}), ${e.gpuLayers >= 999 ? 'all' : e.gpuLayers} GPU layers`
        : `WebAssembly, ${e.threads} thread${e.threads === 1 ? '' : 's'}`;
    return `${e.engine} on ${where}`;
  }

  private renderDownloading() {
    const active = this.downloading;
    if (active.length === 0) return nothing;
    const bytes = active.reduce((sum, d) => sum + d.bytes, 0);
    const total = active.reduce((sum, d) => sum + d.total, 0);
    const percent = total > 0 ? Math.floor((bytes / total) * 100) : 0;
    const what = active.length === 1 ? '1 download' : `${active.length} downloads`;
    return html`<a
      class="downloading"
      href="#discover"
      data-testid="downloads-indicator"
      title="${what} in progress: show in Discover"
      aria-label="${what} in progress, ${percent}%: show in Discover"
      >${icons.download}${active.length > 1 ? `${active.length} · ` : ''}${percent}%</a
    >`;
  }

  private panel(id: TabId, content: () => TemplateResult) {
    return html`<section
      role="tabpanel"
      id="panel-${id}"
      aria-labelledby="tab-${id}"
      ?hidden=${this.tab !== id}
    >
      ${this.ready ? content() : html`<p class="starting">Starting lmtab…</p>`}
    </section>`;
  }

  override render() {
    if (this.fatal) return html`<p class="fatal error" role="alert">${this.fatal}</p>`;
    const text = this.engineText();
    return html`
      <lmtab-update-banner .state=${this.updateState}></lmtab-update-banner>
      <header class="top">
        <h1 class="brand"><span class="logo">${icons.chat}</span>lmtab</h1>
        ${this.renderDownloading()}
        <span class="engine" title=${this.engineError === '' ? text : this.engineError}>
          <span
            class="dot ${this.engine ? 'on' : this.engineError ? 'off' : ''}"
            aria-hidden="true"
          ></span>
          <span class="text" data-testid="engine-info">${text}</span>
        </span>
      </header>
      <nav>
        <div role="tablist" aria-label="Sections" @keydown=${this.onTabKey}>
          ${tabs.map(
            (t) =>
              html`<button
                role="tab"
                id="tab-${t.id}"
                aria-controls="panel-${t.id}"
                aria-selected=${this.tab === t.id ? 'true' : 'false'}
                tabindex=${this.tab === t.id ? 0 : -1}
                @click=${() => this.select(t.id)}
              >
                ${t.icon}<span>${t.label}</span>
              </button>`,
          )}
        </div>
      </nav>
      <main>
        ${
          this.modelsError
            ? html`<p class="banner error" role="alert">${this.modelsError}</p>`
            : nothing
        }
        ${this.panel(
          'chat',
          () =>
            html`<lmtab-chat-view
              .models=${this.models}
              .media=${this.media}
              .conversations=${this.conversations}
              .api=${this.api}
              ?active=${this.tab === 'chat'}
            ></lmtab-chat-view>`,
        )}
        ${this.panel(
          'developer',
          () =>
            html`<lmtab-developer-view
              .api=${this.api}
              .engineHost=${this.engineHost}
              .relayServer=${this.relayServer}
              ?is-host=${this.host}
              ?active=${this.tab === 'developer'}
            ></lmtab-developer-view>`,
        )}
        ${this.panel(
          'models',
          () =>
            html`<lmtab-models-view
              .store=${this.store}
              .api=${this.api}
              .models=${this.models}
              ?active=${this.tab === 'models'}
            ></lmtab-models-view>`,
        )}
        ${this.panel(
          'discover',
          () =>
            html`<lmtab-discover-view
              .store=${this.store}
              .downloads=${this.downloads}
              .models=${this.models}
              .gpu=${engineGpu(this.engine)}
              ?active=${this.tab === 'discover'}
            ></lmtab-discover-view>`,
        )}
      </main>
    `;
  }
}

customElements.define('lmtab-app', LmtabApp);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-app': LmtabApp;
  }
}
