import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
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

  static override styles = [
    controlStyles,
    css`
      :host {
        color-scheme: light;
        --lm-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
        --lm-mono: ui-monospace, 'SF Mono', 'Cascadia Code', Menlo, Consolas, monospace;
        --lm-radius: 12px;
        --lm-radius-sm: 8px;
        --lm-bg: #f5f6f8;
        --lm-rail: #eceef2;
        --lm-surface: #ffffff;
        --lm-surface-2: #f0f2f5;
        --lm-field: #ffffff;
        --lm-border: #dde1e7;
        --lm-border-strong: #b9c0ca;
        --lm-text: #1a1d23;
        --lm-muted: #5b6470;
        --lm-accent: #4f46e5;
        --lm-accent-strong: #4338ca;
        --lm-accent-text: #ffffff;
        --lm-accent-soft: rgb(79 70 229 / 0.1);
        --lm-accent-on-soft: #4338ca;
        --lm-focus: #4f46e5;
        --lm-link: #4338ca;
        --lm-user-bubble: #e9e8fc;
        --lm-code-bg: #f3f4f7;
        --lm-success: #1f7a3a;
        --lm-success-soft: rgb(31 122 58 / 0.14);
        --lm-danger: #b42318;
        --lm-danger-soft: rgb(180 35 24 / 0.09);
        --lm-shadow: 0 12px 32px rgb(16 24 40 / 0.16);
        --lm-shadow-sm: 0 1px 3px rgb(16 24 40 / 0.08);

        display: grid;
        grid-template-columns: 5.25rem minmax(0, 1fr);
        grid-template-rows: auto minmax(0, 1fr);
        grid-template-areas: 'top top' 'rail main';
        height: 100%;
        background: var(--lm-bg);
        color: var(--lm-text);
        font-family: var(--lm-font);
        -webkit-font-smoothing: antialiased;
      }
      @media (prefers-color-scheme: dark) {
        :host {
          color-scheme: dark;
          --lm-bg: #111318;
          --lm-rail: #0c0e12;
          --lm-surface: #181b21;
          --lm-surface-2: #22262e;
          --lm-field: #111318;
          --lm-border: #2c313a;
          --lm-border-strong: #4a515c;
          --lm-text: #e7e9ee;
          --lm-muted: #9aa3b0;
          --lm-accent: #8b83ff;
          --lm-accent-strong: #a39dff;
          --lm-accent-text: #12102b;
          --lm-accent-soft: rgb(139 131 255 / 0.16);
          --lm-accent-on-soft: #bcb7ff;
          --lm-focus: #a39dff;
          --lm-link: #aaa4ff;
          --lm-user-bubble: #2a2853;
          --lm-code-bg: #0d0f13;
          --lm-success: #4ade80;
          --lm-success-soft: rgb(74 222 128 / 0.16);
          --lm-danger: #ff8a80;
          --lm-danger-soft: rgb(255 138 128 / 0.12);
          --lm-shadow: 0 12px 32px rgb(0 0 0 / 0.5);
          --lm-shadow-sm: 0 1px 3px rgb(0 0 0 / 0.4);
        }
      }
      .top {
        grid-area: top;
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 1rem;
        height: 3rem;
        padding: 0 1rem;
        background: var(--lm-rail);
        border-bottom: 1px solid var(--lm-border);
        min-width: 0;
      }
      .brand {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        font-weight: 700;
        font-size: 1.05rem;
        letter-spacing: -0.01em;
        margin: 0;
      }
      .logo {
        display: inline-grid;
        place-items: center;
        width: 1.75rem;
        height: 1.75rem;
        border-radius: 0.5rem;
        background: var(--lm-accent);
        color: var(--lm-accent-text);
      }
      .logo svg {
        width: 1rem;
        height: 1rem;
      }
      .engine {
        display: flex;
        align-items: center;
        gap: 0.45rem;
        min-width: 0;
        font-size: 0.8rem;
        color: var(--lm-muted);
      }
      .engine .text {
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .downloading {
        display: inline-flex;
        align-items: center;
        gap: 0.3rem;
        margin-left: auto;
        margin-right: -0.25rem;
        flex: none;
        padding: 0.2rem 0.6rem;
        border-radius: 999px;
        background: var(--lm-accent-soft);
        color: var(--lm-accent-on-soft);
        font-size: 0.78rem;
        font-weight: 600;
        text-decoration: none;
        white-space: nowrap;
        font-variant-numeric: tabular-nums;
      }
      .downloading svg {
        width: 0.9rem;
        height: 0.9rem;
      }
      .dot {
        width: 0.5rem;
        height: 0.5rem;
        border-radius: 50%;
        background: var(--lm-border-strong);
        flex: none;
      }
      .dot.on {
        background: var(--lm-success);
      }
      .dot.off {
        background: var(--lm-danger);
      }
      nav {
        grid-area: rail;
        background: var(--lm-rail);
        border-right: 1px solid var(--lm-border);
      }
      [role='tablist'] {
        display: flex;
        flex-direction: column;
        gap: 0.3rem;
        padding: 0.6rem 0.45rem;
      }
      [role='tab'] {
        flex-direction: column;
        gap: 0.3rem;
        height: 4.1rem;
        padding: 0.3rem;
        border: none;
        border-radius: var(--lm-radius-sm);
        background: transparent;
        color: var(--lm-muted);
        font-size: 0.72rem;
        font-weight: 600;
        white-space: normal;
        text-align: center;
        line-height: 1.1;
      }
      [role='tab'] svg {
        width: 1.35rem;
        height: 1.35rem;
      }
      [role='tab']:hover {
        color: var(--lm-text);
      }
      [role='tab'][aria-selected='true'] {
        background: var(--lm-accent-soft);
        color: var(--lm-accent-on-soft);
      }
      main {
        grid-area: main;
        min-width: 0;
        min-height: 0;
        position: relative;
      }
      [role='tabpanel'] {
        height: 100%;
        min-height: 0;
      }
      [role='tabpanel'][hidden] {
        display: none;
      }
      [role='tabpanel'] > * {
        height: 100%;
      }
      .banner {
        position: absolute;
        top: 0.75rem;
        left: 50%;
        transform: translateX(-50%);
        z-index: 30;
        width: min(40rem, calc(100% - 1.5rem));
        margin: 0;
        padding: 0.6rem 0.9rem;
        border-radius: var(--lm-radius-sm);
        background: var(--lm-surface);
        border: 1px solid var(--lm-danger);
        box-shadow: var(--lm-shadow);
        font-size: 0.875rem;
      }
      .starting {
        display: grid;
        place-items: center;
        height: 100%;
        color: var(--lm-muted);
      }
      .fatal {
        grid-column: 1 / -1;
        grid-row: 1 / -1;
        margin: auto;
        max-width: 32rem;
        padding: 2rem;
        text-align: center;
        line-height: 1.5;
      }
      @media (max-width: 759px) {
        :host {
          grid-template-columns: minmax(0, 1fr);
          grid-template-rows: auto minmax(0, 1fr) auto;
          grid-template-areas: 'top' 'main' 'rail';
        }
        .top {
          height: 2.75rem;
          padding: 0 0.75rem;
        }
        nav {
          border-right: none;
          border-top: 1px solid var(--lm-border);
          padding-bottom: env(safe-area-inset-bottom);
        }
        [role='tablist'] {
          flex-direction: row;
          gap: 0.2rem;
          padding: 0.3rem;
        }
        [role='tab'] {
          flex: 1;
          height: 3.3rem;
        }
      }
    `,
  ];

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
