import { LitElement, css, html } from 'lit';
import type { DownloadState } from '../../store/index.js';
import { formatBytes } from '../../store/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { failureLine } from '../client/failure-text.js';
import { formatDuration } from '../shared/format-duration.js';

/** What a button of the list asks for. */
export type DownloadAction = 'pause' | 'resume' | 'cancel' | 'dismiss';

const statusText: Record<DownloadState['status'], string> = {
  downloading: 'Downloading',
  retrying: 'Reconnecting',
  paused: 'Paused',
  failed: 'Failed',
  done: 'Downloaded',
};

/**
 * The downloads panel: each download with a progress bar, bytes, rate and time left, and Pause,
 * Resume, Cancel buttons; errors inline. Buttons fire `download-action` (detail: `{id, action}`).
 */
export class LmtabDownloadList extends LitElement {
  static override properties = {
    downloads: { attribute: false },
  };

  declare downloads: DownloadState[];

  constructor() {
    super();
    this.downloads = [];
  }

  static override styles = [
    controlStyles,
    css`
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
        display: flex;
        flex-direction: column;
        gap: 0.6rem;
      }
      li {
        display: flex;
        flex-direction: column;
        gap: 0.35rem;
        padding: 0.75rem 0.9rem;
        min-width: 0;
      }
      .head {
        display: flex;
        gap: 0.3rem 0.75rem;
        align-items: baseline;
        justify-content: space-between;
        flex-wrap: wrap;
      }
      .id {
        font-weight: 600;
        font-size: 0.88rem;
        overflow-wrap: anywhere;
        min-width: 0;
      }
      .status {
        font-size: 0.78rem;
        color: var(--lm-muted);
      }
      li[data-status='done'] .status {
        color: var(--lm-success);
      }
      li[data-status='failed'] .status {
        color: var(--lm-danger);
      }
      progress {
        width: 100%;
        height: 0.45rem;
        accent-color: var(--lm-accent);
      }
      .numbers,
      .note {
        font-size: 0.8rem;
        color: var(--lm-muted);
        font-variant-numeric: tabular-nums;
        overflow-wrap: anywhere;
      }
      .error {
        margin: 0;
        font-size: 0.85rem;
        overflow-wrap: anywhere;
      }
      .buttons {
        display: flex;
        flex-wrap: wrap;
        gap: 0.4rem;
      }
    `,
  ];

  private act(id: string, action: DownloadAction) {
    this.dispatchEvent(
      new CustomEvent('download-action', { detail: { id, action }, bubbles: true, composed: true }),
    );
  }

  private numbers(d: DownloadState): string {
    const parts = [`${formatBytes(d.bytes)} of ${formatBytes(d.total)}`];
    if (d.status === 'downloading' && d.rate !== undefined) {
      parts.push(`${formatBytes(d.rate)}/s`);
      if (d.secondsLeft !== undefined) parts.push(`${formatDuration(d.secondsLeft)} left`);
    }
    return parts.join(' · ');
  }

  private item(d: DownloadState) {
    const active = d.status === 'downloading' || d.status === 'retrying';
    const percent = d.total > 0 ? Math.floor((d.bytes / d.total) * 100) : 0;
    return html`
      <li class="card" data-id=${d.id} data-status=${d.status}>
        <div class="head">
          <span class="id">${d.id}</span>
          <span class="status">${statusText[d.status]}</span>
        </div>
        <progress
          aria-label=${`Download of ${d.id}`}
          max=${d.total}
          .value=${d.bytes}
          aria-valuetext=${`${percent}%`}
        ></progress>
        <span class="numbers" data-testid="download-numbers">${this.numbers(d)}</span>
        ${d.note ? html`<span class="note">${d.note}</span>` : null}
        ${d.error ? html`<p class="error" role="alert">${failureLine(d.error)}</p>` : null}
        <div class="buttons">
          ${
            active
              ? html`<button
                  class="small"
                  aria-label=${`Pause ${d.id}`}
                  @click=${() => this.act(d.id, 'pause')}
                >
                  Pause
                </button>`
              : null
          }
          ${
            d.status === 'paused' || d.status === 'failed'
              ? html`<button
                  class="small"
                  aria-label=${`Resume ${d.id}`}
                  @click=${() => this.act(d.id, 'resume')}
                >
                  Resume
                </button>`
              : null
          }
          ${
            d.status !== 'done'
              ? html`<button
                  class="small"
                  aria-label=${`Cancel ${d.id}`}
                  @click=${() => this.act(d.id, 'cancel')}
                >
                  Cancel
                </button>`
              : html`<button
                  class="small"
                  aria-label=${`Dismiss ${d.id}`}
                  @click=${() => this.act(d.id, 'dismiss')}
                >
                  Dismiss
                </button>`
          }
        </div>
      </li>
    `;
  }

  override render() {
    if (this.downloads.length === 0) return html`<p class="note">Nothing downloading.</p>`;
    return html`<ul aria-label="Downloads">
      ${this.downloads.map((d) => this.item(d))}
    </ul>`;
  }
}

customElements.define('lmtab-download-list', LmtabDownloadList);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-download-list': LmtabDownloadList;
  }
}
