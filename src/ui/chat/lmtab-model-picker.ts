import { LitElement, css, html, nothing } from 'lit';
import { isEmbeddingOnly } from '../../engine/index.js';
import type { ModelRecord, ProjectorMedia } from '../../store/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { icons } from '../shared/icons.js';

/** A model load started from the picker, as the Chat tab tracks it. */
export interface ModelLoad {
  model: string;
  phase: 'loading' | 'loaded' | 'error';
  /** `performance.now()` when the load began. */
  startedAt: number;
  /** How long the load took, once loaded. */
  ms?: number;
  /** Why it failed. */
  error?: string;
}

/**
 * The Chat tab's model dropdown with the model's load state: an honest, indeterminate "Loading…"
 * with elapsed seconds (wllama reports no load progress), then "Loaded in N s", and Load and Eject
 * buttons. Fires `model-change`, `model-load` and `model-eject`, each with `{model}`.
 */
export class LmtabModelPicker extends LitElement {
  static override properties = {
    models: { attribute: false },
    media: { attribute: false },
    value: { type: String },
    resident: { type: Boolean },
    load: { attribute: false },
    disabled: { type: Boolean },
    now: { state: true },
  };

  /** The stored models to choose from. */
  declare models: ModelRecord[];
  /** What each model's projector adds, by model id; a projector not read yet is taken to see. */
  declare media: Record<string, ProjectorMedia>;
  /** The chosen model's id. */
  declare value: string;
  /** Whether the chosen model is in the engine's memory. */
  declare resident: boolean;
  /** The latest load started here. */
  declare load: ModelLoad | undefined;
  /** Locks the choice (while an answer streams). */
  declare disabled: boolean;
  declare now: number;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.models = [];
    this.media = {};
    this.value = '';
    this.resident = false;
    this.disabled = false;
    this.now = 0;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        min-width: 0;
        flex-wrap: wrap;
      }
      .select {
        position: relative;
        flex: 1 1 14rem;
        max-width: 26rem;
        min-width: 0;
      }
      select {
        font-weight: 600;
        padding-left: 2.1rem !important;
        text-overflow: ellipsis;
      }
      .select svg {
        position: absolute;
        left: 0.6rem;
        top: 50%;
        transform: translateY(-50%);
        color: var(--lm-accent);
        pointer-events: none;
      }
      .state {
        display: inline-flex;
        align-items: center;
        gap: 0.45rem;
        font-size: 0.8rem;
        color: var(--lm-muted);
        min-width: 0;
      }
      .dot {
        width: 0.55rem;
        height: 0.55rem;
        border-radius: 50%;
        background: var(--lm-border-strong);
        flex: none;
      }
      .dot.on {
        background: var(--lm-success);
        box-shadow: 0 0 0 3px var(--lm-success-soft);
      }
      .spinner {
        width: 0.9rem;
        height: 0.9rem;
        border: 2px solid var(--lm-accent-soft);
        border-top-color: var(--lm-accent);
        border-radius: 50%;
        animation: spin 0.8s linear infinite;
        flex: none;
      }
      @keyframes spin {
        to {
          transform: rotate(360deg);
        }
      }
      .error {
        font-size: 0.8rem;
        flex-basis: 100%;
        margin: 0;
      }
      .elapsed {
        font-variant-numeric: tabular-nums;
      }
    `,
  ];

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  override willUpdate() {
    const loading = this.load?.phase === 'loading';
    if (loading && !this.timer) {
      this.now = performance.now();
      this.timer = setInterval(() => (this.now = performance.now()), 250);
    } else if (!loading && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  override updated() {
    // Options render after the select's own bindings, and a touched option ignores `selected`.
    const select = this.renderRoot.querySelector('select');
    if (select && select.value !== this.value) select.value = this.value;
  }

  private emit(type: 'model-change' | 'model-load' | 'model-eject', model: string) {
    this.dispatchEvent(new CustomEvent(type, { detail: { model }, bubbles: true, composed: true }));
  }

  private renderState() {
    const load = this.load?.model === this.value ? this.load : undefined;
    if (!this.value) return nothing;
    if (load?.phase === 'loading') {
      const seconds = Math.max(0, (this.now - load.startedAt) / 1000);
      return html`<span class="state">
        <span class="spinner" aria-hidden="true"></span>
        <span role="status">Loading ${this.value}…</span>
        <span class="elapsed" aria-hidden="true">${seconds.toFixed(0)} s</span>
      </span>`;
    }
    if (load?.phase === 'error') {
      return html`<button
          class="small"
          type="button"
          @click=${() => this.emit('model-load', this.value)}
        >
          ${icons.play} Retry load
        </button>
        <p class="error" role="alert">${load.error}</p>`;
    }
    if (this.resident) {
      const text =
        load?.phase === 'loaded' && load.ms !== undefined
          ? `Loaded in ${(load.ms / 1000).toFixed(1)} s`
          : 'Loaded';
      return html`<span class="state"
          ><span class="dot on" aria-hidden="true"></span><span role="status">${text}</span></span
        >
        <button
          class="ghost small"
          type="button"
          ?disabled=${this.disabled}
          title="Unload the model from memory"
          @click=${() => this.emit('model-eject', this.value)}
        >
          ${icons.eject} Eject
        </button>`;
    }
    return html`<span class="state"
        ><span class="dot" aria-hidden="true"></span><span role="status">Not loaded</span></span
      >
      <button
        class="small"
        type="button"
        ?disabled=${this.disabled}
        @click=${() => this.emit('model-load', this.value)}
      >
        ${icons.play} Load
      </button>`;
  }

  override render() {
    return html`
      <span class="select">
        ${icons.chip}
        <select
          aria-label="Model"
          ?disabled=${this.disabled || this.models.length === 0}
          @change=${(event: Event) =>
            this.emit('model-change', (event.target as HTMLSelectElement).value)}
        >
          ${this.models.length === 0 ? html`<option value="">No models yet</option>` : nothing}
          ${this.models.map((m) => {
            // Listed so people see why their model is not offered, but not selectable for chat.
            const embedding = isEmbeddingOnly(m.gguf);
            return html`<option
              value=${m.id}
              ?selected=${m.id === this.value}
              ?disabled=${embedding}
            >
              ${m.id}${m.projector ? projectorLabel(this.media[m.id]) : ''}${
                embedding ? ' · embedding only' : ''
              }
            </option>`;
          })}
        </select>
      </span>
      ${this.renderState()}
    `;
  }
}

customElements.define('lmtab-model-picker', LmtabModelPicker);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-model-picker': LmtabModelPicker;
  }
}

/** What a model's projector adds, as the picker shows it: ` · vision`, ` · audio`, ` · speech`. */
function projectorLabel(media: ProjectorMedia | undefined): string {
  if (media === undefined) return ' · vision';
  const kinds = [media.vision && 'vision', media.audio && 'audio', media.speech && 'speech'];
  return kinds
    .filter((kind) => kind !== false)
    .map((kind) => ` · ${kind}`)
    .join('');
}
