import { LitElement, css, html, nothing } from 'lit';
import { controlStyles } from '../shared/control-styles.js';
import type { HubProblem } from './hub-problem.js';
import { icons } from '../shared/icons.js';

/**
 * A failed hub call shown inline: what happened, what to do, the details, a Retry button (event
 * `retry`) and, where a setting can fix it, a Hub settings button (event `hub-settings-open`).
 */
export class LmtabHubProblem extends LitElement {
  static override properties = {
    problem: { attribute: false },
    busy: { type: Boolean },
  };

  declare problem: HubProblem | undefined;
  /** Set while the retry runs. */
  declare busy: boolean;

  constructor() {
    super();
    this.busy = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
      }
      .problem {
        display: grid;
        grid-template-columns: auto minmax(0, 1fr);
        gap: 0.25rem 0.75rem;
        padding: 0.85rem 1rem;
        border-radius: var(--lm-radius-sm);
        border: 1px solid var(--lm-danger);
        background: var(--lm-danger-soft);
      }
      .problem > svg {
        color: var(--lm-danger);
        margin-top: 0.1rem;
      }
      strong {
        font-size: 0.92rem;
      }
      p {
        margin: 0;
        font-size: 0.85rem;
        line-height: 1.45;
      }
      .detail {
        color: var(--lm-muted);
        font-size: 0.78rem;
        overflow-wrap: anywhere;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin-top: 0.4rem;
      }
    `,
  ];

  private fire(type: string) {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true }));
  }

  override render() {
    const p = this.problem;
    if (p === undefined) return nothing;
    const settings = p.kind !== 'offline';
    return html`<div class="problem" role="alert" data-kind=${p.kind}>
      ${icons.alert}
      <div>
        <strong>${p.title}</strong>
        <p>${p.advice}</p>
        <p class="detail">${p.code === undefined ? p.detail : `${p.detail} (${p.code})`}</p>
        <div class="actions">
          <button class="small primary" ?disabled=${this.busy} @click=${() => this.fire('retry')}>
            ${icons.refresh} Retry
          </button>
          ${
            settings
              ? html`<button class="small" @click=${() => this.fire('hub-settings-open')}>
                  Hub settings
                </button>`
              : nothing
          }
        </div>
      </div>
    </div>`;
  }
}

customElements.define('lmtab-hub-problem', LmtabHubProblem);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-hub-problem': LmtabHubProblem;
  }
}
