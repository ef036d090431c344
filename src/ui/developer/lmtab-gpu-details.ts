import { LitElement, css, html, nothing } from 'lit';
import { definitionListStyles } from './definition-list-styles.js';
import type { KeyGpuLimit } from '../../engine/index.js';
import type { EngineStatusBody as EngineStatus } from '../../api/index.js';

/** Limits counted in bytes (the others are counts). */
const byteLimits = new Set<KeyGpuLimit>([
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
]);

function limitText(name: KeyGpuLimit, value: number): string {
  if (!byteLimits.has(name)) return value.toLocaleString('en');
  const mib = value / 2 ** 20;
  return mib >= 1 ? `${Number(mib.toFixed(1)).toLocaleString('en')} MiB` : `${value} B`;
}

/**
 * The Developer tab's GPU section: the WebGPU adapter the engine got (vendor, architecture,
 * description, features, key limits, the power preference it asked for), a loaded model's backend
 * lines as llama.cpp logged them (offloaded layers, the adapter it took, graph splits), and the last
 * GPU device loss. Nothing without an adapter (the engine panel says why).
 */
export class LmtabGpuDetails extends LitElement {
  static override properties = { status: { attribute: false } };

  /** What `GET /api/lmtab/engine` answered. */
  declare status: EngineStatus | undefined;

  static override styles = [
    definitionListStyles,
    css`
      :host {
        display: block;
      }
      ul,
      ol {
        margin: 0;
        padding-left: 1.1rem;
      }
      code {
        font-size: 0.78rem;
        font-weight: 400;
      }
      .muted {
        color: var(--lm-muted);
        font-weight: 400;
      }
    `,
  ];

  override render() {
    const status = this.status;
    const gpu = status?.gpu;
    if (!status || !gpu) return nothing;
    const lines = status.loaded.find((m) => m.info.backendLines?.length)?.info.backendLines;
    const limits = Object.entries(gpu.limits ?? {}) as [KeyGpuLimit, number][];
    const named = [gpu.vendor, gpu.architecture, gpu.device, gpu.description].filter((p) => p);
    return html`<dl data-testid="gpu-details">
      <dt>GPU adapter</dt>
      <dd data-testid="gpu-adapter">
        ${named.length > 0 ? named.join(' · ') : gpu.adapter}
        ${
          gpu.powerPreference
            ? html`<span class="muted">(asked for ${gpu.powerPreference})</span>`
            : nothing
        }
        ${gpu.isFallbackAdapter ? html`<span class="muted">(a fallback adapter)</span>` : nothing}
      </dd>
      <dt>Adapter features</dt>
      <dd data-testid="gpu-features">
        ${gpu.features.length > 0 ? gpu.features.join(', ') : 'none'}
      </dd>
      ${
        limits.length > 0
          ? html`<dt>Adapter limits</dt>
              <dd>
                <ul data-testid="gpu-limits">
                  ${limits.map(
                    ([name, value]) =>
                      html`<li><code>${name}</code> ${limitText(name, value)}</li>`,
                  )}
                </ul>
              </dd>`
          : nothing
      }
      ${
        status.graphSplits !== undefined
          ? html`<dt>Graph splits</dt>
              <dd>${status.graphSplits}</dd>`
          : nothing
      }
      ${
        lines
          ? html`<dt>Backend log</dt>
              <dd>
                <ol data-testid="backend-lines">
                  ${lines.map((line) => html`<li><code>${line}</code></li>`)}
                </ol>
              </dd>`
          : nothing
      }
      ${
        status.gpuLost
          ? html`<dt>GPU device lost</dt>
              <dd data-testid="gpu-lost">
                ${new Date(status.gpuLost.at).toLocaleTimeString()}:
                <code>${status.gpuLost.line}</code>
              </dd>`
          : nothing
      }
    </dl>`;
  }
}

customElements.define('lmtab-gpu-details', LmtabGpuDetails);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-gpu-details': LmtabGpuDetails;
  }
}
