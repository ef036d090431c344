import { LitElement, css, html, nothing } from 'lit';
import { formatBytes } from '../../store/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { definitionListStyles } from './definition-list-styles.js';
import type { EngineStatusBody } from '../../api/index.js';
import { icons } from '../shared/icons.js';
import './lmtab-gpu-details.js';

/**
 * The Developer tab's engine information: the compute path (WebGPU adapter and GPU layers, or
 * WebAssembly threads, with the reason WebGPU is not used), the GPU's details
 * (`<lmtab-gpu-details>`) and the loaded models with their busy slots. Fires `engine-refresh` from its Refresh button.
 */
export class LmtabEnginePanel extends LitElement {
  static override properties = {
    status: { attribute: false },
    error: { type: String },
  };

  /** What `GET /api/lmtab/engine` answered. */
  declare status: EngineStatusBody | undefined;
  /** Why the engine could not be asked. */
  declare error: string;

  constructor() {
    super();
    this.error = '';
  }

  static override styles = [
    controlStyles,
    definitionListStyles,
    css`
      :host {
        display: flex;
        flex-direction: column;
        gap: 1rem;
      }
      h3 {
        font-size: 0.8rem;
        text-transform: uppercase;
        letter-spacing: 0.06em;
        color: var(--lm-muted);
      }
      .table {
        overflow-x: auto;
      }
      table {
        width: 100%;
        border-collapse: collapse;
        font-size: 0.85rem;
      }
      th,
      td {
        text-align: left;
        padding: 0.45rem 0.5rem;
        border-bottom: 1px solid var(--lm-border);
        white-space: nowrap;
      }
      th {
        color: var(--lm-muted);
        font-weight: 600;
        font-size: 0.75rem;
      }
      td.num {
        font-variant-numeric: tabular-nums;
      }
      .kv {
        display: block;
        font-size: 0.75rem;
      }
      /* Model ids are long and unbroken: they wrap so that every column stays in view. */
      td.model {
        white-space: normal;
        overflow-wrap: anywhere;
        min-width: 6rem;
      }
      .none {
        margin: 0;
        font-size: 0.85rem;
      }
      .row {
        display: flex;
        justify-content: space-between;
        align-items: center;
      }
    `,
  ];

  private renderLoaded(status: EngineStatusBody) {
    if (status.loaded.length === 0) {
      return html`<p class="none muted">No model is loaded; the first request loads one.</p>`;
    }
    const now = Date.now();
    return html`<div class="table">
      <table>
        <thead>
          <tr>
            <th scope="col">Loaded model</th>
            <th scope="col">Context</th>
            <th scope="col">Busy slots</th>
            <th scope="col">Size</th>
            <th scope="col">Unloads in</th>
          </tr>
        </thead>
        <tbody>
          ${status.loaded.map(
            (m) =>
              html`<tr>
                <td class="model">
                  ${m.model}${
                    m.info.build
                      ? html`<span class="kv muted" data-testid="loaded-build"
                          >${m.info.build}${m.info.buildReason ? `: ${m.info.buildReason}` : ''}</span
                        >`
                      : nothing
                  }
                </td>
                <td class="num">
                  ${m.contextLength.toLocaleString('en')}
                  tokens${
                    m.info.kvCache
                      ? html`<span class="kv muted">KV cache ${m.info.kvCache.toUpperCase()}</span>`
                      : nothing
                  }${
                    m.info.contextReason
                      ? html`<span class="kv muted" data-testid="context-reason"
                          >${m.info.contextReason}</span
                        >`
                      : nothing
                  }${
                    m.info.kernels === 'relaxed-simd'
                      ? html`<span class="kv muted">Relaxed SIMD kernels</span>`
                      : nothing
                  }
                </td>
                <td class="num">${m.active} of ${m.parallel}</td>
                <td class="num">${formatBytes(m.sizeBytes)}</td>
                <td class="num">
                  ${
                    m.active > 0
                      ? 'busy'
                      : `${Math.max(0, Math.round((m.expiresAt - now) / 60_000))} min idle`
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
  }

  override render() {
    const s = this.status;
    return html`
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${
        s
          ? html`<dl>
                <dt>Engine</dt>
                <dd>${s.engine}</dd>
                <dt>Compute</dt>
                <dd>
                  ${
                    s.backend === 'webgpu'
                      ? `WebGPU on ${s.adapter ?? 'a GPU adapter'}`
                      : 'WebAssembly on the CPU'
                  }
                </dd>
                <dt>GPU layers</dt>
                <dd>
                  ${s.gpuLayers === 0 ? '0 (CPU only)' : s.gpuLayers >= 999 ? 'all' : s.gpuLayers}
                </dd>
                <dt>CPU threads</dt>
                <dd>${s.threads}</dd>
                <dt>Cross-origin isolated</dt>
                <dd>${s.crossOriginIsolated ? 'yes' : 'no (one thread only)'}</dd>
                ${
                  s.fallbackReason
                    ? html`<dt>Why not WebGPU</dt>
                        <dd>${s.fallbackReason}</dd>`
                    : nothing
                }
              </dl>
              <lmtab-gpu-details .status=${s}></lmtab-gpu-details>`
          : this.error
            ? nothing
            : html`<p class="none muted">Asking the engine…</p>`
      }
      <div class="row">
        <h3>Memory</h3>
        <button
          class="ghost small"
          type="button"
          @click=${() =>
            this.dispatchEvent(
              new CustomEvent('engine-refresh', { bubbles: true, composed: true }),
            )}
        >
          ${icons.refresh} Refresh
        </button>
      </div>
      ${s ? this.renderLoaded(s) : nothing}
    `;
  }
}

customElements.define('lmtab-engine-panel', LmtabEnginePanel);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-engine-panel': LmtabEnginePanel;
  }
}
