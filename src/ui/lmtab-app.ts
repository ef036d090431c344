import { LitElement, css, html } from 'lit';
import type { EngineHostHandle } from '../bridge/index.js';
import type { EngineInfo } from '../engine/index.js';
import type { ModelStore } from '../store/index.js';
import './lmtab-chat-view.js';
import './lmtab-model-import.js';
import './lmtab-update-banner.js';
import type { UpdateState } from './lmtab-update-banner.js';

/** The app shell: engine status, model import and the chat. */
export class LmtabApp extends LitElement {
  static override properties = {
    store: { attribute: false },
    engineHost: { attribute: false },
    ready: { type: Boolean },
    fatal: { type: String },
    updateState: { attribute: false },
    models: { state: true },
    engine: { state: true },
  };

  declare store: ModelStore | undefined;
  declare engineHost: EngineHostHandle | undefined;
  declare ready: boolean;
  declare fatal: string;
  /** A new version of the app waiting or active, shown by the update banner. */
  declare updateState: UpdateState;
  declare models: string[];
  declare engine: EngineInfo | undefined;

  constructor() {
    super();
    this.ready = false;
    this.fatal = '';
    this.updateState = '';
    this.models = [];
  }

  static override styles = css`
    :host {
      display: flex;
      flex-direction: column;
      height: 100%;
      box-sizing: border-box;
      padding: 1rem;
      gap: 1rem;
    }
    header {
      display: flex;
      flex-wrap: wrap;
      gap: 1rem;
      align-items: baseline;
    }
    h1 {
      font-size: 1.25rem;
      margin: 0;
    }
    .engine {
      font-size: 0.85rem;
      opacity: 0.75;
    }
    lmtab-chat-view {
      flex: 1;
      min-height: 0;
    }
    .fatal {
      color: #c92a2a;
    }
  `;

  override updated(changed: Map<string, unknown>) {
    if (changed.has('ready') && this.ready) void this.refresh();
  }

  private async refresh() {
    this.models = (await this.store?.list())?.map((m) => m.id) ?? [];
    const response = await fetch('/api/lmtab/engine').catch(() => undefined);
    if (response?.ok) this.engine = (await response.json()) as EngineInfo;
  }

  private engineText() {
    const e = this.engine;
    if (!e) return 'Engine starting…';
    const where =
      e.backend === 'webgpu'
        ? `WebGPU (${e.adapter ?? 'adapter'}), ${e.gpuLayers} GPU layers`
        : `WebAssembly, ${e.threads} thread${e.threads === 1 ? '' : 's'}`;
    return `${e.engine} on ${where}`;
  }

  override render() {
    if (this.fatal) return html`<p class="fatal" role="alert">${this.fatal}</p>`;
    return html`
      <lmtab-update-banner .state=${this.updateState}></lmtab-update-banner>
      <header>
        <h1>lmtab</h1>
        <span class="engine" data-testid="engine-info">${this.engineText()}</span>
      </header>
      <lmtab-model-import
        .store=${this.store}
        @model-imported=${() => this.refresh()}
      ></lmtab-model-import>
      <lmtab-chat-view .models=${this.models}></lmtab-chat-view>
    `;
  }
}

customElements.define('lmtab-app', LmtabApp);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-app': LmtabApp;
  }
}
