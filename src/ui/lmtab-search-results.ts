import { LitElement, css, html } from 'lit';
import type { HubModelSummary } from '../hub/index.js';

const count = new Intl.NumberFormat('en', { notation: 'compact' });

/** Hub search results, most downloaded first; picking one fires `repo-select` (detail: the id). */
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

  static override styles = css`
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
      display: flex;
      flex-direction: column;
      gap: 0.25rem;
    }
    button {
      width: 100%;
      display: flex;
      justify-content: space-between;
      gap: 1rem;
      text-align: start;
      padding: 0.4rem 0.6rem;
      font: inherit;
      border: 1px solid color-mix(in srgb, currentColor 20%, transparent);
      border-radius: 6px;
      background: none;
      color: inherit;
      cursor: pointer;
    }
    button[aria-pressed='true'] {
      background: color-mix(in srgb, #3b5bdb 18%, transparent);
    }
    .meta {
      font-size: 0.85rem;
      opacity: 0.75;
      white-space: nowrap;
    }
  `;

  private select(id: string) {
    this.dispatchEvent(
      new CustomEvent<string>('repo-select', { detail: id, bubbles: true, composed: true }),
    );
  }

  override render() {
    return html`
      <ul aria-label="Search results">
        ${this.results.map(
          (model) => html`
            <li>
              <button
                aria-pressed=${model.id === this.selected ? 'true' : 'false'}
                @click=${() => this.select(model.id)}
              >
                <span class="id">${model.id}</span>
                <span class="meta">
                  ${count.format(model.downloads)} downloads · ${count.format(model.likes)}
                  likes${model.gated ? ' · gated' : ''}${
                    model.pipelineTag === 'image-text-to-text' ? ' · vision' : ''
                  }
                </span>
              </button>
            </li>
          `,
        )}
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
