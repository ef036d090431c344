import { LitElement, css, html, nothing } from 'lit';
import type { GgufChoice, HubModelInfo } from '../../hub/index.js';
import { controlStyles } from '../shared/control-styles.js';
import type { DeviceFacts } from './device-fit.js';
import { formatParameterCount } from '../shared/format-parameter-count.js';
import { formatRelativeTime } from '../shared/format-relative-time.js';
import { icons } from '../shared/icons.js';
import '../shared/lmtab-markdown.js';
import './lmtab-quantization-picker.js';

const count = new Intl.NumberFormat('en', { notation: 'compact' });

/**
 * One hub repository opened from the search results: its facts, the quantization picker (events
 * `download-choice` bubble from it) and the model card rendered as markdown. Fires `repo-close`
 * from its Back button.
 */
export class LmtabRepoDetails extends LitElement {
  static override properties = {
    info: { attribute: false },
    choices: { attribute: false },
    stored: { attribute: false },
    facts: { attribute: false },
    card: { attribute: false },
    needsToken: { type: Boolean, attribute: 'needs-token' },
  };

  declare info: HubModelInfo | undefined;
  declare choices: GgufChoice[];
  /** Levels of this repository already stored. */
  declare stored: string[];
  /** What the browser and the engine say about this device (for the picker's fit). */
  declare facts: DeviceFacts;
  /** The model card's markdown; undefined while it loads, '' when there is none. */
  declare card: string | undefined;
  /** The repository is gated and no token is set. */
  declare needsToken: boolean;

  constructor() {
    super();
    this.choices = [];
    this.stored = [];
    this.facts = {};
    this.needsToken = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: flex;
        flex-direction: column;
        gap: 0.9rem;
      }
      .top {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem 0.9rem;
      }
      h3 {
        font-size: 1.1rem;
        overflow-wrap: anywhere;
        min-width: 0;
      }
      .meta {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 0.9rem;
        font-size: 0.8rem;
        color: var(--lm-muted);
      }
      .meta span {
        display: inline-flex;
        align-items: center;
        gap: 0.25rem;
      }
      .meta svg {
        width: 0.85rem;
        height: 0.85rem;
      }
      .columns {
        display: grid;
        grid-template-columns: minmax(0, 22rem) minmax(0, 1fr);
        gap: 0.9rem;
        align-items: start;
      }
      .card {
        padding: 1rem 1.1rem;
        min-width: 0;
      }
      .gated {
        margin: 0 0 0.75rem;
        font-size: 0.85rem;
        color: var(--lm-danger);
      }
      .readme h4 {
        margin: 0 0 0.5rem;
        font-size: 0.92rem;
      }
      .readme lmtab-markdown {
        max-height: 32rem;
        overflow-y: auto;
        font-size: 0.88rem;
      }
      @media (max-width: 900px) {
        .columns {
          grid-template-columns: minmax(0, 1fr);
        }
      }
    `,
  ];

  override render() {
    const info = this.info;
    if (info === undefined) return nothing;
    const updated = info.lastModified === undefined ? NaN : Date.parse(info.lastModified);
    return html`
      <div class="top">
        <button class="small" @click=${() => this.fire('repo-close')}>← Back to results</button>
        <h3 id="repo-heading" tabindex="-1">${info.id}</h3>
      </div>
      <div class="meta">
        <span>${icons.download} ${count.format(info.downloads)} downloads</span>
        <span>${icons.heart} ${count.format(info.likes)} likes</span>
        ${
          Number.isNaN(updated)
            ? nothing
            : html`<span>${icons.clock} updated ${formatRelativeTime(updated, Date.now())}</span>`
        }
        ${
          info.gguf?.total
            ? html`<span>${formatParameterCount(info.gguf.total)} parameters</span>`
            : nothing
        }
        ${info.gguf?.architecture ? html`<span>${info.gguf.architecture}</span>` : nothing}
      </div>
      <div class="columns">
        <section class="card" aria-label="Quantizations">
          ${
            this.needsToken
              ? html`<p class="gated">
                  ${info.id} is gated: set a hub token to download it (Hub settings, below).
                </p>`
              : nothing
          }
          <lmtab-quantization-picker
            .repo=${info.id}
            .choices=${this.choices}
            .stored=${this.stored}
            .facts=${this.facts}
          ></lmtab-quantization-picker>
        </section>
        <section class="card readme" aria-labelledby="card-heading">
          <h4 id="card-heading">Model card</h4>
          ${
            this.card === undefined
              ? html`<p class="muted" role="status">Loading the model card…</p>`
              : this.card === ''
                ? html`<p class="muted">This repository has no model card.</p>`
                : html`<lmtab-markdown .text=${this.card}></lmtab-markdown>`
          }
        </section>
      </div>
    `;
  }

  private fire(type: string) {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true }));
  }
}

customElements.define('lmtab-repo-details', LmtabRepoDetails);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-repo-details': LmtabRepoDetails;
  }
}
