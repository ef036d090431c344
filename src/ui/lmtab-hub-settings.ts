import { LitElement, css, html } from 'lit';
import { DEFAULT_HUB_ENDPOINT } from '../hub/index.js';
import type { HubSettings } from '../hub/index.js';

/**
 * The hub endpoint and optional token, edited in place. Fires `hub-settings-change` (detail:
 * {@link HubSettings}) when a field is committed; the owner saves them.
 */
export class LmtabHubSettings extends LitElement {
  static override properties = {
    settings: { attribute: false },
  };

  declare settings: HubSettings;

  constructor() {
    super();
    this.settings = {};
  }

  static override styles = css`
    :host {
      display: flex;
      flex-wrap: wrap;
      gap: 0.75rem;
      font-size: 0.9rem;
    }
    label {
      display: inline-flex;
      gap: 0.4rem;
      align-items: center;
    }
    input {
      min-width: 16rem;
    }
  `;

  private commit() {
    const endpoint = this.renderRoot.querySelector<HTMLInputElement>('#endpoint')?.value ?? '';
    const token = this.renderRoot.querySelector<HTMLInputElement>('#token')?.value ?? '';
    const settings: HubSettings = {};
    if (endpoint.trim() !== '') settings.endpoint = endpoint.trim();
    if (token.trim() !== '') settings.token = token.trim();
    this.dispatchEvent(
      new CustomEvent<HubSettings>('hub-settings-change', {
        detail: settings,
        bubbles: true,
        composed: true,
      }),
    );
  }

  override render() {
    return html`
      <label for="endpoint">Hub endpoint</label>
      <input
        id="endpoint"
        type="url"
        placeholder=${DEFAULT_HUB_ENDPOINT}
        .value=${this.settings.endpoint ?? ''}
        @change=${this.commit}
      />
      <label for="token">Hub token</label>
      <input
        id="token"
        type="password"
        autocomplete="off"
        placeholder="hf_… (optional, for gated models)"
        .value=${this.settings.token ?? ''}
        @change=${this.commit}
      />
    `;
  }
}

customElements.define('lmtab-hub-settings', LmtabHubSettings);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-hub-settings': LmtabHubSettings;
  }
}
