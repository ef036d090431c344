import { LitElement, css, html } from 'lit';

/**
 * What the banner offers: nothing; a new version installed and waiting; or a new version another
 * tab already activated (this tab still runs the old code).
 */
export type UpdateState = '' | 'waiting' | 'activated';

/**
 * "Reload to update": shown while a new version of the app waits. The click only asks (event
 * `update-requested`); the page decides how to activate the new service worker and reload.
 */
export class LmtabUpdateBanner extends LitElement {
  static override properties = {
    state: { type: String, reflect: true },
  };

  declare state: UpdateState;

  constructor() {
    super();
    this.state = '';
  }

  static override styles = css`
    :host {
      display: block;
    }
    :host([state='']) {
      display: none;
    }
    div {
      display: flex;
      flex-wrap: wrap;
      gap: 0.75rem;
      align-items: center;
      padding: 0.5rem 0.75rem;
      border-radius: 0.5rem;
      background: #e7f5ff;
      color: #1c3d5a;
      font-size: 0.9rem;
    }
    button {
      font: inherit;
      padding: 0.25rem 0.75rem;
    }
  `;

  private request() {
    this.dispatchEvent(new CustomEvent('update-requested', { bubbles: true, composed: true }));
  }

  override render() {
    if (this.state === '') return null;
    const text =
      this.state === 'waiting'
        ? 'A new version of lmtab is ready.'
        : 'A new version of lmtab is active in another tab.';
    return html`<div aria-live="polite" aria-label="Update">
      <span>${text}</span>
      <button type="button" @click=${this.request}>
        ${this.state === 'waiting' ? 'Reload to update' : 'Reload'}
      </button>
    </div>`;
  }
}

customElements.define('lmtab-update-banner', LmtabUpdateBanner);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-update-banner': LmtabUpdateBanner;
  }
}
