import { LitElement, css, html, nothing } from 'lit';
import type { GgufChoice } from '../../hub/index.js';
import { formatBytes } from '../../store/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { choiceFiles, deviceFit, type DeviceFacts } from './device-fit.js';
import { icons } from '../shared/icons.js';

/**
 * A repository's quantization levels with sizes and notes, Q4_K_M (or the nearest) preselected
 * as recommended, whether the pick fits the browser's free storage and the memory of each compute
 * path, and a Download button that fires `download-choice` (detail: the {@link GgufChoice}),
 * disabled for a pick neither path can hold.
 */
export class LmtabQuantizationPicker extends LitElement {
  static override properties = {
    repo: { type: String },
    choices: { attribute: false },
    stored: { attribute: false },
    facts: { attribute: false },
    picked: { state: true },
  };

  declare repo: string;
  declare choices: GgufChoice[];
  /** Levels of this repository already stored. */
  declare stored: string[];
  /** What the browser and the engine say about this device (free storage, memory, GPU). */
  declare facts: DeviceFacts;
  declare picked: string;

  constructor() {
    super();
    this.repo = '';
    this.choices = [];
    this.stored = [];
    this.facts = {};
    this.picked = '';
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
      }
      fieldset {
        margin: 0;
        padding: 0;
        border: none;
        display: flex;
        flex-direction: column;
        gap: 0.4rem;
        min-width: 0;
      }
      legend {
        padding: 0;
        margin-bottom: 0.5rem;
        font-weight: 600;
        font-size: 0.92rem;
        overflow-wrap: anywhere;
      }
      label {
        display: grid;
        grid-template-columns: auto minmax(0, 1fr);
        column-gap: 0.6rem;
        row-gap: 0.2rem;
        align-items: start;
        padding: 0.55rem 0.75rem;
        border: 1px solid var(--lm-border);
        border-radius: var(--lm-radius-sm);
        cursor: pointer;
      }
      label:has(input:checked) {
        border-color: var(--lm-accent);
        background: var(--lm-accent-soft);
      }
      input[type='radio'] {
        accent-color: var(--lm-accent);
        margin: 0.2rem 0 0;
      }
      input[type='radio']:focus-visible {
        outline: 2px solid var(--lm-focus);
        outline-offset: 2px;
      }
      .level {
        display: flex;
        flex-wrap: wrap;
        gap: 0.3rem 0.5rem;
        align-items: center;
        font-weight: 600;
        font-size: 0.88rem;
        font-variant-numeric: tabular-nums;
      }
      .note,
      .hint {
        grid-column: 2;
        font-size: 0.78rem;
        color: var(--lm-muted);
        overflow-wrap: anywhere;
      }
      p.hint {
        margin: 0.2rem 0 0;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.6rem 0.9rem;
        align-items: center;
        margin-top: 0.8rem;
      }
      .fit {
        margin: 0;
        font-size: 0.82rem;
        color: var(--lm-success);
      }
      .misfit {
        color: var(--lm-danger);
      }
      .paths {
        flex-basis: 100%;
        margin: 0;
        padding-left: 1.2rem;
        font-size: 0.78rem;
        color: var(--lm-muted);
        overflow-wrap: anywhere;
      }
    `,
  ];

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('choices') && !this.choices.some((c) => c.quantization === this.picked)) {
      this.picked =
        (this.choices.find((c) => c.recommended) ?? this.choices[0])?.quantization ?? '';
    }
  }

  private choice(): GgufChoice | undefined {
    return this.choices.find((c) => c.quantization === this.picked);
  }

  private download() {
    const choice = this.choice();
    if (choice === undefined) return;
    this.dispatchEvent(
      new CustomEvent<GgufChoice>('download-choice', {
        detail: choice,
        bubbles: true,
        composed: true,
      }),
    );
  }

  private storageFit(choice: GgufChoice) {
    const free = this.facts.freeStorage;
    if (free === undefined) return null;
    const fits = choice.downloadSize <= free;
    const text = fits
      ? `Fits in this browser's storage: needs ${formatBytes(choice.downloadSize)} of ${formatBytes(free)} free.`
      : `Does not fit: needs ${formatBytes(choice.downloadSize)}, but only ${formatBytes(free)} of this browser's storage is free.`;
    return html`<p class=${fits ? 'fit' : 'fit misfit'} data-testid="fit">${text}</p>`;
  }

  override render() {
    if (this.choices.length === 0) {
      return html`<p class="muted">${this.repo} has no GGUF model files.</p>`;
    }
    const choice = this.choice();
    const fit = choice === undefined ? undefined : deviceFit(choiceFiles(choice), this.facts);
    return html`
      <fieldset>
        <legend>Quantization of ${this.repo}</legend>
        ${this.choices.map(
          (c) => html`
            <label>
              <input
                type="radio"
                name="quantization"
                .value=${c.quantization}
                .checked=${c.quantization === this.picked}
                @change=${() => (this.picked = c.quantization)}
              />
              <span class="level">
                ${c.quantization} · ${formatBytes(c.downloadSize)}
                ${c.recommended ? html`<span class="badge accent">Recommended</span>` : null}
                ${
                  this.stored.includes(c.quantization)
                    ? html`<span class="badge success">Downloaded</span>`
                    : null
                }
              </span>
              <span class="note">${c.note}</span>
              ${
                c.projector
                  ? html`<span class="hint"
                      >With the vision projector ${c.projector.path}
                      (${formatBytes(c.projector.size)}).</span
                    >`
                  : null
              }
            </label>
          `,
        )}
        <p class="hint">Q4 levels are faster and smaller; Q6 and Q8 give better quality.</p>
      </fieldset>
      <div class="actions">
        <button
          class="primary"
          @click=${this.download}
          ?disabled=${fit === undefined || fit.blocked !== undefined}
          aria-describedby=${fit?.blocked === undefined ? nothing : 'memory-fit'}
          title=${fit?.blocked ?? nothing}
        >
          ${icons.download} Download
        </button>
        ${choice ? this.storageFit(choice) : null}
        ${
          fit?.memoryText === undefined
            ? null
            : html`<p id="memory-fit" class="fit misfit" data-testid="memory-fit">
                ${fit.memoryText}
              </p>`
        }
        ${
          fit
            ? html`<ul class="paths" aria-label="Memory on each compute path">
                <li data-testid="fit-cpu" data-fits=${fit.cpu.fits}>${fit.cpu.text}</li>
                <li data-testid="fit-gpu" data-fits=${fit.gpu.fits}>${fit.gpu.text}</li>
              </ul>`
            : null
        }
      </div>
    `;
  }
}

customElements.define('lmtab-quantization-picker', LmtabQuantizationPicker);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-quantization-picker': LmtabQuantizationPicker;
  }
}
