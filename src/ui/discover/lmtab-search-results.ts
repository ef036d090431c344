import { LitElement, css, html, nothing } from 'lit';
import type { HubModelSummary } from '../../hub/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { formatRelativeTime } from '../shared/format-relative-time.js';
import { icons } from '../shared/icons.js';

const count = new Intl.NumberFormat('en', { notation: 'compact' });

/**
 * Hub search results as cards (downloads, likes, last update, vision and gated badges), most
 * downloaded first; picking one fires `repo-select` (detail: the id).
 */
export class LmtabSearchResults extends LitElement {
  static override properties = {
    results: { attribute: false },
    selected: { type: String },
  };

  declare results: HubModelSummary[];
  declare selected: string;

  constructor() {
    super();
    this.results = [];
    this.selected = '';
  }

  static override styles = [
    controlStyles,
    css`
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(min(100%, 16rem), 1fr));
        gap: 0.7rem;
      }
      li {
        display: flex;
        min-width: 0;
      }
      button.card {
        flex: 1;
        min-width: 0;
        display: flex;
        flex-direction: column;
        align-items: stretch;
        justify-content: flex-start;
        gap: 0.45rem;
        padding: 0.8rem 0.9rem;
        text-align: start;
        white-space: normal;
        border-radius: var(--lm-radius);
      }
      button.card:hover:not(:disabled) {
        border-color: var(--lm-border-strong);
        background: var(--lm-surface);
      }
      button.card[aria-pressed='true'] {
        border-color: var(--lm-accent);
        box-shadow: 0 0 0 1px var(--lm-accent);
      }
      .org {
        font-size: 0.75rem;
        color: var(--lm-muted);
        overflow-wrap: anywhere;
      }
      .name {
        font-weight: 600;
        font-size: 0.92rem;
        overflow-wrap: anywhere;
      }
      .meta {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 0.8rem;
        font-size: 0.78rem;
        font-weight: 400;
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
      .badges {
        display: flex;
        flex-wrap: wrap;
        gap: 0.3rem;
      }
    `,
  ];

  private select(id: string) {
    this.dispatchEvent(
      new CustomEvent<string>('repo-select', { detail: id, bubbles: true, composed: true }),
    );
  }

  override render() {
    const now = Date.now();
    return html`
      <ul aria-label="Search results">
        ${this.results.map((model) => {
          const [org, name] = model.id.includes('/') ? model.id.split('/', 2) : ['', model.id];
          const updated = model.lastModified === undefined ? NaN : Date.parse(model.lastModified);
          const vision = model.pipelineTag === 'image-text-to-text';
          return html`
            <li data-repo=${model.id}>
              <button
                class="card"
                aria-pressed=${model.id === this.selected ? 'true' : 'false'}
                aria-label=${`${model.id}, ${count.format(model.downloads)} downloads, ${count.format(model.likes)} likes`}
                @click=${() => this.select(model.id)}
              >
                <span>
                  <span class="org">${org}</span><br />
                  <span class="name">${name}</span>
                </span>
                <span class="meta">
                  <span title="Downloads in the last 30 days"
                    >${icons.download} ${count.format(model.downloads)}</span
                  >
                  <span title="Likes">${icons.heart} ${count.format(model.likes)}</span>
                  ${
                    Number.isNaN(updated)
                      ? nothing
                      : html`<span title=${`Updated ${model.lastModified}`}
                          >${icons.clock} ${formatRelativeTime(updated, now)}</span
                        >`
                  }
                </span>
                ${
                  vision || model.gated
                    ? html`<span class="badges">
                        ${vision ? html`<span class="badge accent">Vision</span>` : nothing}
                        ${model.gated ? html`<span class="badge">Gated</span>` : nothing}
                      </span>`
                    : nothing
                }
              </button>
            </li>
          `;
        })}
      </ul>
    `;
  }
}

customElements.define('lmtab-search-results', LmtabSearchResults);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-search-results': LmtabSearchResults;
  }
}
