import { LitElement, css, html, nothing } from 'lit';
import type { RelayRequestLog } from '../../bridge/index.js';
import type { RelayHealth } from '../../bridge/wire.js';
import type { RelayServer } from './relay-server.js';

const stateLabels = {
  stopped: 'Stopped',
  connecting: 'Connecting…',
  connected: 'Running',
  disconnected: 'Reconnecting…',
  closed: 'Stopped',
} as const;

function urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

function formatTime(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString([], { hour12: false });
}

/**
 * The Developer tab's relay part: Start/Stop Server (this tab serving the relay's API), the base
 * URLs, copyable curl and OpenAI SDK snippets, and a live request log. Renders nothing unless the
 * page was served by a relay (`/health` answers).
 */
export class LmtabServerPanel extends LitElement {
  static override properties = {
    server: { attribute: false },
    model: { type: String },
    health: { state: true },
    apiKey: { state: true },
    copied: { state: true },
  };

  /** The tab's relay link (made by the page's main). */
  declare server: RelayServer | undefined;
  /** Model id used in the snippets; `MODEL` when unset. */
  declare model: string;
  declare health: RelayHealth | undefined;
  /** The key clients need, told only to this page when the relay served it on this machine. */
  declare apiKey: string | undefined;
  declare copied: string;
  private watched: RelayServer | undefined;
  private readonly onChange = () => {
    this.requestUpdate();
    // The relay's view (engines connected) changes with this tab's connection.
    void this.refreshHealth();
  };

  constructor() {
    super();
    this.model = '';
    this.copied = '';
  }

  static override styles = css`
    :host {
      display: block;
    }
    section {
      display: flex;
      flex-direction: column;
      gap: 0.75rem;
    }
    .row {
      display: flex;
      flex-wrap: wrap;
      gap: 0.75rem;
      align-items: center;
    }
    h2 {
      font-size: 1rem;
      margin: 0;
    }
    .state {
      font-size: 0.85rem;
      padding: 0.1rem 0.5rem;
      border-radius: 999px;
      background: color-mix(in srgb, currentColor 10%, transparent);
    }
    .state[data-state='connected'] {
      background: color-mix(in srgb, #2f9e44 25%, transparent);
    }
    .detail {
      font-size: 0.8rem;
      opacity: 0.75;
    }
    code,
    pre {
      font-family: ui-monospace, monospace;
      font-size: 0.8rem;
    }
    pre {
      margin: 0;
      padding: 0.5rem 0.75rem;
      border-radius: 6px;
      overflow-x: auto;
      background: color-mix(in srgb, currentColor 6%, transparent);
    }
    .snippet {
      display: flex;
      flex-direction: column;
      gap: 0.25rem;
    }
    summary {
      cursor: pointer;
    }
    details .snippet {
      margin-top: 0.5rem;
    }
    .log {
      max-height: 12rem;
      overflow-y: auto;
    }
    table {
      border-collapse: collapse;
      font-size: 0.8rem;
    }
    th,
    td {
      text-align: left;
      padding: 0.2rem 0.6rem 0.2rem 0;
      white-space: nowrap;
    }
    .failed {
      color: #c92a2a;
    }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.refreshHealth();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.watched?.removeEventListener('change', this.onChange);
    this.watched = undefined;
  }

  override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('server') && this.server !== this.watched) {
      this.watched?.removeEventListener('change', this.onChange);
      this.watched = this.server;
      this.watched?.addEventListener('change', this.onChange);
      void this.refreshHealth();
    }
  }

  private async refreshHealth() {
    // Once served by a relay, the panel stays while the relay restarts (the tab reconnects).
    this.health = (await this.server?.health()) ?? this.health;
    if (this.health !== undefined && this.health.auth !== 'none') {
      this.apiKey = (await this.server?.session())?.apiKey ?? this.apiKey;
    }
  }

  private baseUrls(health: RelayHealth): string[] {
    const lan = health.lanAddresses.map((a) => `http://${urlHost(a)}:${health.port}/v1`);
    return [`${location.origin}/v1`, ...lan];
  }

  private snippets(baseUrl: string) {
    const model = this.model !== '' ? this.model : 'MODEL';
    const curl = [
      `curl ${baseUrl}/chat/completions \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d '${JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello!' }] })}'`,
    ].join('\n');
    const sdk = [
      `import OpenAI from 'openai';`,
      ``,
      `const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: 'lmtab' });`,
      `const answer = await client.chat.completions.create({`,
      `  model: '${model}',`,
      `  messages: [{ role: 'user', content: 'Hello!' }],`,
      `});`,
      `console.log(answer.choices[0].message.content);`,
    ].join('\n');
    const ollama = [
      `import { Ollama } from 'ollama';`,
      ``,
      `const ollama = new Ollama({ host: '${baseUrl.replace(/\/v1$/, '')}' });`,
      `const answer = await ollama.chat({`,
      `  model: '${model}',`,
      `  messages: [{ role: 'user', content: 'Hello!' }],`,
      `});`,
      `console.log(answer.message.content);`,
    ].join('\n');
    return [
      { name: 'curl', text: curl },
      { name: 'OpenAI SDK (JavaScript)', text: sdk },
      { name: 'Ollama client (JavaScript)', text: ollama },
    ];
  }

  private async copy(name: string, text: string) {
    await navigator.clipboard.writeText(text).catch(() => undefined);
    this.copied = name;
    setTimeout(() => {
      if (this.copied === name) this.copied = '';
    }, 1500);
  }

  private renderLog(log: RelayRequestLog[]) {
    if (log.length === 0) return html`<p class="detail">No requests yet.</p>`;
    return html`
      <table aria-label="Request log">
        <thead>
          <tr>
            <th>Time</th>
            <th>Method</th>
            <th>Path</th>
            <th>Model</th>
            <th>Status</th>
            <th>Tokens or audio</th>
            <th>Duration</th>
          </tr>
        </thead>
        <tbody>
          ${log.map(
            (entry) => html`
              <tr data-testid="request-log-row" class=${entry.error ? 'failed' : ''}>
                <td>${formatTime(entry.time)}</td>
                <td>${entry.method}</td>
                <td>${entry.path}</td>
                <td>${entry.model ?? ''}</td>
                <td>${[entry.status, entry.error].filter((v) => v !== undefined).join(' ')}</td>
                <td>
                  ${
                    entry.tokens ??
                    (entry.audioSeconds === undefined ? '' : `${entry.audioSeconds.toFixed(1)} s`)
                  }
                </td>
                <td>${entry.durationMs === undefined ? '' : `${entry.durationMs} ms`}</td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    `;
  }

  override render() {
    const server = this.server;
    const health = this.health;
    if (!server || !health) return nothing;
    const running = server.state !== 'stopped' && server.state !== 'closed';
    const urls = this.baseUrls(health);
    return html`
      <section aria-label="Local server">
        <div class="row">
          <h2>Local server</h2>
          <span class="state" data-state=${server.state} data-testid="server-state">
            ${stateLabels[server.state]}
          </span>
          ${
            running
              ? html`<button @click=${() => server.stop()}>Stop Server</button>`
              : html`<button @click=${() => server.start()}>Start Server</button>`
          }
          <span class="detail">
            ${health.engines} engine tab${health.engines === 1 ? '' : 's'} connected to the relay
          </span>
        </div>
        ${server.detail ? html`<p class="detail" data-testid="server-detail">${server.detail}</p>` : nothing}
        <div class="row">
          Base URL:
          <code data-testid="base-url">${urls[0]}</code>
          ${
            urls.length > 1
              ? html`on the LAN:
                ${urls.slice(1).map((url) => html`<code data-testid="lan-url">${url}</code>`)}`
              : nothing
          }
        </div>
        ${
          health.auth === 'none'
            ? nothing
            : html`<div class="row">
                ${health.auth === 'remote' ? 'Other devices send' : 'Clients send'} the API key:
                ${
                  this.apiKey === undefined
                    ? html`<span class="detail">printed by <code>lmtab serve</code></span>`
                    : html`<code data-testid="api-key">${this.apiKey}</code>
                        <button @click=${() => this.copy('API key', this.apiKey ?? '')}>
                          ${this.copied === 'API key' ? 'Copied' : 'Copy'}
                        </button>`
                }
              </div>`
        }
        <details>
          <summary>Code snippets</summary>
          ${this.snippets(urls.at(-1) ?? urls[0]).map(
            (snippet) => html`
              <div class="snippet">
                <div class="row">
                  <strong>${snippet.name}</strong>
                  <button @click=${() => this.copy(snippet.name, snippet.text)}>
                    ${this.copied === snippet.name ? 'Copied' : 'Copy'}
                  </button>
                </div>
                <pre>${snippet.text}</pre>
              </div>
            `,
          )}
        </details>
        <div class="log">${this.renderLog(server.log)}</div>
      </section>
    `;
  }
}

customElements.define('lmtab-server-panel', LmtabServerPanel);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-server-panel': LmtabServerPanel;
  }
}
