import { LitElement, css, html } from 'lit';
import type { EngineHostHandle } from '../../bridge/index.js';
import { controlStyles, pageStyles } from '../shared/control-styles.js';
import type { EngineStatusBody } from '../../api/index.js';
import { createApiClient, type ApiClient } from '../client/api-client.js';
import { failureText } from '../client/failure-text.js';
import './lmtab-engine-panel.js';
import './lmtab-load-settings.js';
import './lmtab-server-panel.js';
import type { RelayServer } from './relay-server.js';

/** Milliseconds between engine checks while the tab shows (busy slots change live). */
const pollMs = 3000;

/**
 * The Developer tab: the local server (`<lmtab-server-panel>`, from the relay work), then this
 * tab's load settings and the engine information, refreshed while the tab shows.
 */
export class LmtabDeveloperView extends LitElement {
  static override properties = {
    engineHost: { attribute: false },
    relayServer: { attribute: false },
    api: { attribute: false },
    active: { type: Boolean },
    isHost: { type: Boolean, attribute: 'is-host' },
    status: { state: true },
    error: { state: true },
  };

  /** This tab's engine host handle (the server panel connects the engine to the relay with it). */
  declare engineHost: EngineHostHandle | undefined;
  /** This tab's link to the relay; the server panel starts and stops it. */
  declare relayServer: RelayServer | undefined;
  /** Whether the tab shows. */
  declare active: boolean;
  /** Whether this tab runs the engine. */
  declare isHost: boolean;
  /** The page's API (the engine's status). */
  declare api: ApiClient;
  declare status: EngineStatusBody | undefined;
  declare error: string;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.api = createApiClient();
    this.active = false;
    this.isHost = false;
    this.error = '';
  }

  static override styles = [
    controlStyles,
    pageStyles,
    css`
      header p {
        line-height: 1.5;
      }
      .grid {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr));
        gap: 1.25rem;
        align-items: start;
      }
      .card {
        padding: 1.1rem 1.25rem 1.25rem;
        display: flex;
        flex-direction: column;
        gap: 1rem;
      }
      .card > h3 {
        font-size: 1rem;
      }
      .card > p {
        margin: -0.6rem 0 0;
        font-size: 0.85rem;
        color: var(--lm-muted);
        line-height: 1.45;
      }
      @media (max-width: 759px) {
        .page {
          padding: 1rem 0.75rem 2rem;
        }
        .card {
          padding: 1rem;
        }
      }
    `,
  ];

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (!changed.has('active')) return;
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.active) {
      void this.refresh();
      this.timer = setInterval(() => void this.refresh(), pollMs);
    }
  }

  private async refresh() {
    try {
      this.status = await this.api.engineStatus();
      this.error = '';
    } catch (error) {
      this.error = `The engine did not answer: ${failureText(error)}`;
    }
  }

  override render() {
    return html`<div class="page">
      <header>
        <h2>Developer</h2>
        <p>
          Serve the models in this tab through an OpenAI-compatible API, and choose how the engine
          runs them.
        </p>
      </header>
      <lmtab-server-panel .server=${this.relayServer}></lmtab-server-panel>
      <div class="grid">
        <section class="card" aria-labelledby="load-heading">
          <h3 id="load-heading">Load settings</h3>
          <p>Used when the engine starts; the current values are under Engine.</p>
          <lmtab-load-settings ?is-host=${this.isHost}></lmtab-load-settings>
        </section>
        <section class="card" aria-labelledby="engine-heading">
          <h3 id="engine-heading">Engine</h3>
          <lmtab-engine-panel
            .status=${this.status}
            error=${this.error}
            @engine-refresh=${() => this.refresh()}
          ></lmtab-engine-panel>
        </section>
      </div>
    </div>`;
  }
}

customElements.define('lmtab-developer-view', LmtabDeveloperView);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-developer-view': LmtabDeveloperView;
  }
}
