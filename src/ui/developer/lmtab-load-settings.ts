import { LitElement, css, html, nothing } from 'lit';
import { loadEngineSettings, saveEngineSettings } from '../../engine/index.js';
import type { EngineSettings } from '../../engine/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { loadApiSettings, saveApiSettings } from './api-settings.js';
import { icons } from '../shared/icons.js';

/** The engine's numeric load settings, and the upload limit of the API it serves (in GiB). */
type Field = Exclude<keyof EngineSettings, 'kvCache' | 'cpuEngine'> | 'uploadLimitGib';

const gib = 1024 ** 3;

interface FieldSpec {
  key: Field;
  label: string;
  min: number;
  max?: number;
  step: number;
  placeholder: string;
  hint: string;
}

/**
 * The Developer tab's load settings: GPU layers (0 = CPU only), context length, CPU threads and the
 * KV cache type,
 * saved with {@link saveEngineSettings}, and the `/api/blobs` upload limit ({@link saveApiSettings}). They apply when the engine next starts, so after saving it
 * offers "Restart engine" (a reload) in the tab that runs the engine.
 */
export class LmtabLoadSettings extends LitElement {
  static override properties = {
    isHost: { type: Boolean, attribute: 'is-host' },
    cores: { type: Number },
    values: { state: true },
    kvCache: { state: true },
    cpuEngine: { state: true },
    saved: { state: true },
    error: { state: true },
  };

  /** Whether this tab runs the engine (a reload restarts it). */
  declare isHost: boolean;
  /** Logical CPU cores of this device; default `navigator.hardwareConcurrency`. */
  declare cores: number;
  declare values: Record<Field, string>;
  /** The KV cache choice: `auto` or `f16` (see {@link EngineSettings.kvCache}). */
  declare kvCache: NonNullable<EngineSettings['kvCache']>;
  /** The CPU build: `lmtab` or `wllama` (see {@link EngineSettings.cpuEngine}). */
  declare cpuEngine: NonNullable<EngineSettings['cpuEngine']>;
  declare saved: boolean;
  declare error: string;

  constructor() {
    super();
    this.isHost = false;
    this.cores = globalThis.navigator?.hardwareConcurrency ?? 1;
    const stored = loadEngineSettings();
    const { maxBlobBytes } = loadApiSettings();
    this.values = {
      gpuLayers: stored.gpuLayers?.toString() ?? '',
      contextLength: stored.contextLength?.toString() ?? '',
      threads: stored.threads?.toString() ?? '',
      uploadLimitGib: maxBlobBytes === undefined ? '' : String(Math.ceil(maxBlobBytes / gib)),
    };
    this.kvCache = stored.kvCache ?? 'auto';
    this.cpuEngine = stored.cpuEngine ?? 'lmtab';
    this.saved = false;
    this.error = '';
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
      }
      form {
        display: flex;
        flex-direction: column;
        gap: 1rem;
      }
      .field {
        display: grid;
        grid-template-columns: 1fr 8rem;
        gap: 0.25rem 1rem;
        align-items: center;
      }
      label {
        font-weight: 600;
        font-size: 0.9rem;
      }
      .hint {
        grid-column: 1 / -1;
        font-size: 0.78rem;
        color: var(--lm-muted);
        line-height: 1.45;
      }
      input {
        text-align: right;
      }
      .actions {
        display: flex;
        gap: 0.5rem;
        flex-wrap: wrap;
        align-items: center;
      }
      .note {
        margin: 0;
        padding: 0.65rem 0.8rem;
        border-radius: var(--lm-radius-sm);
        background: var(--lm-accent-soft);
        font-size: 0.85rem;
        line-height: 1.45;
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem 0.75rem;
        align-items: center;
      }
      .note.error {
        background: var(--lm-danger-soft);
      }
    `,
  ];

  private get fields(): FieldSpec[] {
    return [
      {
        key: 'gpuLayers',
        label: 'GPU layers',
        min: 0,
        step: 1,
        placeholder: 'All',
        hint: 'Layers offloaded to WebGPU. 0 runs on the CPU only; empty offloads every layer when a usable adapter exists.',
      },
      {
        key: 'contextLength',
        label: 'Context length',
        min: 256,
        max: 1_048_576,
        step: 256,
        placeholder: '4096',
        hint: 'Tokens of context shared by the parallel slots; more holds longer chats and uses more memory.',
      },
      {
        key: 'threads',
        label: 'CPU threads',
        min: 1,
        max: this.cores,
        step: 1,
        placeholder: `${this.cores} (all)`,
        hint: `WebAssembly threads on this ${this.cores}-core device. More than one needs a cross-origin isolated page.`,
      },
      {
        key: 'uploadLimitGib',
        label: 'Upload limit (GiB)',
        min: 1,
        max: 65_536,
        step: 1,
        placeholder: '64',
        hint: 'Largest model file a page of this origin may upload to /api/blobs (Ollama’s create); larger ones get 413. The relay has its own limit: lmtab serve --max-blob.',
      },
    ];
  }

  private save(event: Event) {
    event.preventDefault();
    const settings: EngineSettings = {};
    let uploadLimitGib: number | undefined;
    for (const field of this.fields) {
      const text = this.values[field.key].trim();
      if (text === '') continue;
      const value = Number(text);
      const max = field.max ?? Infinity;
      if (!Number.isInteger(value) || value < field.min || value > max) {
        const range = Number.isFinite(max) ? `${field.min} to ${max}` : `${field.min} or more`;
        this.error = `${field.label} must be a whole number from ${range}, or empty for the default; it is “${text}”.`;
        this.saved = false;
        return;
      }
      if (field.key === 'uploadLimitGib') uploadLimitGib = value;
      else settings[field.key] = value;
    }
    if (this.kvCache !== 'auto') settings.kvCache = this.kvCache;
    if (this.cpuEngine !== 'lmtab') settings.cpuEngine = this.cpuEngine;
    saveEngineSettings(settings);
    saveApiSettings(uploadLimitGib === undefined ? {} : { maxBlobBytes: uploadLimitGib * gib });
    this.error = '';
    this.saved = true;
  }

  /**
   * One of the load settings chosen from a list (the KV cache, the CPU engine). The options are
   * rendered after the select's `.value` is set on the first render, so each also says whether it
   * is selected; `.value` keeps later renders (Clear) right after a person has picked one.
   */
  private selectField<Key extends 'kvCache' | 'cpuEngine'>(
    key: Key,
    label: string,
    options: [value: this[Key], text: string][],
    hint: string,
  ) {
    return html`<div class="field">
      <label for=${key}>${label}</label>
      <select
        id=${key}
        aria-describedby="${key}-hint"
        .value=${this[key]}
        @change=${(e: Event) => {
          this[key] = (e.target as HTMLSelectElement).value as this[Key];
          this.saved = false;
        }}
      >
        ${options.map(
          ([value, text]) =>
            html`<option value=${value} ?selected=${value === this[key]}>${text}</option>`,
        )}
      </select>
      <span class="hint" id="${key}-hint">${hint}</span>
    </div>`;
  }

  override render() {
    return html`<form novalidate @submit=${this.save}>
      ${this.fields.map(
        (field) =>
          html`<div class="field">
            <label for=${field.key}>${field.label}</label>
            <input
              id=${field.key}
              type="number"
              inputmode="numeric"
              min=${field.min}
              max=${field.max ?? nothing}
              step=${field.step}
              placeholder=${field.placeholder}
              aria-describedby="${field.key}-hint"
              .value=${this.values[field.key]}
              @input=${(e: Event) => {
                this.values = { ...this.values, [field.key]: (e.target as HTMLInputElement).value };
                this.saved = false;
              }}
            />
            <span class="hint" id="${field.key}-hint">${field.hint}</span>
          </div>`,
      )}
      ${this.selectField(
        'kvCache',
        'KV cache',
        [
          ['auto', 'Automatic'],
          ['f16', 'F16'],
        ],
        "Automatic keeps keys and values in Q8_0 on the CPU where a model's heads allow: about half the memory, and much faster attention in WebAssembly, at a tiny loss of precision. F16 is llama.cpp's default.",
      )}
      ${this.selectField(
        'cpuEngine',
        'CPU engine',
        [
          ['lmtab', 'lmtab (SIMD)'],
          ['wllama', 'wllama stock'],
        ],
        "What runs a model on the CPU. lmtab's build has SIMD kernels, about three times faster; wllama's stock build carries a newer llama.cpp with generic kernels, for comparing answers.",
      )}
      <div class="actions">
        <button class="primary" type="submit">Save settings</button>
        <button
          type="button"
          @click=${() => {
            this.values = { gpuLayers: '', contextLength: '', threads: '', uploadLimitGib: '' };
            this.kvCache = 'auto';
            this.cpuEngine = 'lmtab';
            this.saved = false;
          }}
        >
          Clear
        </button>
      </div>
      ${this.error ? html`<p class="note error" role="alert">${this.error}</p>` : nothing}
      ${
        this.saved
          ? html`<p class="note" role="status">
              <span>Saved. Load settings apply the next time the engine starts.</span>
              ${
                this.isHost
                  ? html`<button class="small" type="button" @click=${() => location.reload()}>
                      ${icons.refresh} Restart engine
                    </button>`
                  : html`<span
                      >The engine runs in another lmtab tab: reload that tab to restart it.</span
                    >`
              }
            </p>`
          : nothing
      }
    </form>`;
  }
}

customElements.define('lmtab-load-settings', LmtabLoadSettings);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-load-settings': LmtabLoadSettings;
  }
}
