import { LitElement, css, html } from 'lit';
import { DEFAULT_HUB_ENDPOINT } from '../../hub/index.js';
import type { HubSettings } from '../../hub/index.js';
import { controlStyles } from '../shared/control-styles.js';

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

  static override styles = [
    controlStyles,
    css`
      :host {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(100%, 16rem), 1fr));
        gap: 0.75rem 1rem;
      }
      label {
        display: flex;
        flex-direction: column;
        gap: 0.3rem;
        font-size: 0.82rem;
        font-weight: 500;
      }
    `,
  ];

  /** Moves the focus to the token field. */
  focusToken() {
    this.renderRoot.querySelector<HTMLInputElement>('#token')?.focus();
  }

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
      <label>
        Hub endpoint
        <input
          id="endpoint"
          type="url"
          placeholder=${DEFAULT_HUB_ENDPOINT}
          .value=${this.settings.endpoint ?? ''}
          @change=${this.commit}
        />
      </label>
      <label>
        Hub token
        <input
          id="token"
          type="password"
          autocomplete="off"
          placeholder="hf_… (optional, for gated models)"
          .value=${this.settings.token ?? ''}
          @change=${this.commit}
        />
      </label>
    `;
  }
}

customElements.define('lmtab-hub-settings', LmtabHubSettings);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-hub-settings': LmtabHubSettings;
  }
}
