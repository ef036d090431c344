import { LitElement, css, html, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { defaultChatSettings, type ChatSettings, type ToolChoiceSetting } from './chat-settings.js';
import { checkJsonSchemaText, checkToolsText } from './check-json-settings.js';
import { controlStyles } from '../../shared/control-styles.js';
import {
  fields,
  formatStop,
  optionalFields,
  parseStop,
  type NumberField,
  type OptionalField,
} from './chat-setting-fields.js';
import { icons } from '../../shared/icons.js';
import './lmtab-json-editor.js';

/** A setting's label and field on one row, with what goes below the row and the hint under it. */
function fieldFrame(
  id: string,
  label: string,
  hint: string,
  input: TemplateResult,
  below: TemplateResult | null = null,
) {
  return html`<div class="field">
    <div class="row">
      <label for=${id}>${label}</label>
      ${input}
    </div>
    ${below}
    <span class="hint" id="${id}-hint">${hint}</span>
  </div>`;
}

/**
 * The Chat tab's settings sidebar: system prompt, sampling (`temperature`, `max_tokens`, `top_p`,
 * `top_k`, `repeat_penalty`, `stop`, `seed`) with a reset to the defaults, Structured output (a
 * JSON Schema sent as `response_format`) and Tools (function definitions sent as `tools`). Fires
 * `settings-change` with the whole new `{settings, final}`: `final` is false while a JSON editor is
 * being typed in (show it, keep it unsaved) and true on every committed edit.
 */
export class LmtabChatSettings extends LitElement {
  static override properties = {
    settings: { attribute: false },
  };

  /** The open conversation's settings. */
  declare settings: ChatSettings;

  constructor() {
    super();
    this.settings = { ...defaultChatSettings };
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: flex;
        flex-direction: column;
        gap: 1.1rem;
        padding: 0.9rem 1rem 1.5rem;
        overflow-y: auto;
        font-size: 0.875rem;
      }
      h2 {
        font-size: 0.8rem;
        text-transform: uppercase;
        letter-spacing: 0.06em;
        color: var(--lm-muted);
      }
      .section {
        display: flex;
        flex-direction: column;
        gap: 0.9rem;
      }
      .field {
        display: flex;
        flex-direction: column;
        gap: 0.35rem;
      }
      .row {
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 0.5rem;
      }
      label {
        font-weight: 600;
      }
      .row input {
        width: 5.5rem !important;
        text-align: right;
        min-height: 1.9rem !important;
        padding: 0.2rem 0.4rem !important;
      }
      .hint {
        font-size: 0.75rem;
        color: var(--lm-muted);
        line-height: 1.4;
      }
      textarea {
        min-height: 5rem;
      }
      .stop {
        min-height: 3.5rem;
        font-family: var(--lm-mono);
        font-size: 0.82rem;
      }
      .head {
        display: flex;
        align-items: center;
        justify-content: space-between;
      }
      .switch {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        cursor: pointer;
      }
      .switch input {
        width: 1.05rem;
        height: 1.05rem;
        accent-color: var(--lm-accent);
      }
    `,
  ];

  private change(patch: Partial<ChatSettings>, final = true) {
    this.dispatchEvent(
      new CustomEvent('settings-change', {
        detail: { settings: { ...this.settings, ...patch }, final },
        bubbles: true,
        composed: true,
      }),
    );
  }

  private numberField(field: NumberField) {
    const value = this.settings[field.key];
    const id = `field-${field.key}`;
    const commit = (event: Event) => {
      const input = event.target as HTMLInputElement;
      const parsed = input.valueAsNumber;
      if (Number.isFinite(parsed)) {
        const clamped = Math.min(field.limit ?? Infinity, Math.max(field.min, parsed));
        this.change({ [field.key]: field.integer ? Math.round(clamped) : clamped });
      } else input.value = String(value);
    };
    return fieldFrame(
      id,
      field.label,
      field.hint,
      html`<input
        id=${id}
        type="number"
        inputmode="decimal"
        min=${field.min}
        step=${field.step}
        .value=${live(String(value))}
        aria-describedby="${id}-hint"
        @change=${commit}
      />`,
      field.slider
        ? html`<input
            type="range"
            aria-label="${field.label} slider"
            min=${field.min}
            max=${field.max}
            step=${field.step}
            .value=${live(String(value))}
            @change=${commit}
          />`
        : null,
    );
  }

  private optionalField(field: OptionalField) {
    const value = this.settings[field.key];
    const id = `field-${field.id}`;
    return fieldFrame(
      id,
      field.label,
      field.hint,
      html`<input
        id=${id}
        type="number"
        inputmode="numeric"
        min=${field.min}
        step="1"
        placeholder=${field.placeholder}
        aria-describedby="${id}-hint"
        .value=${live(value === null ? '' : String(value))}
        @change=${(e: Event) => {
          const parsed = (e.target as HTMLInputElement).valueAsNumber;
          const whole = Math.min(field.max, Math.max(field.min, Math.round(parsed)));
          this.change({ [field.key]: Number.isFinite(parsed) ? whole : null });
        }}
      />`,
    );
  }

  private toggle(
    id: string,
    label: string,
    hint: string,
    checked: boolean,
    set: (on: boolean) => void,
  ) {
    return html`<div class="field">
      <label class="switch" for="field-${id}">
        <input
          id="field-${id}"
          type="checkbox"
          role="switch"
          aria-describedby="field-${id}-hint"
          .checked=${live(checked)}
          @change=${(e: Event) => set((e.target as HTMLInputElement).checked)}
        />
        ${label}
      </label>
      <span class="hint" id="field-${id}-hint">${hint}</span>
    </div>`;
  }

  override render() {
    const s = this.settings;
    return html`
      <section class="section">
        <h2 id="prompt-heading">System prompt</h2>
        <textarea
          aria-label="System prompt"
          placeholder="You are a helpful assistant."
          .value=${live(s.systemPrompt)}
          @change=${(e: Event) =>
            this.change({ systemPrompt: (e.target as HTMLTextAreaElement).value })}
        ></textarea>
      </section>
      <section class="section">
        <div class="head">
          <h2 id="sampling-heading">Sampling</h2>
          <button
            class="ghost small"
            type="button"
            @click=${() => {
              // Only sampling resets: the prompt, schema and tools are the person's own writing.
              const {
                systemPrompt,
                structuredOutput,
                jsonSchema,
                toolsEnabled,
                tools,
                toolChoice,
              } = s;
              this.change({
                ...defaultChatSettings,
                ...{ systemPrompt, structuredOutput, jsonSchema, toolsEnabled, tools, toolChoice },
              });
            }}
          >
            ${icons.refresh} Reset to defaults
          </button>
        </div>
        ${fields.map((field) => this.numberField(field))}
        ${optionalFields.map((field) => this.optionalField(field))}
        <div class="field">
          <label for="field-stop">Stop strings</label>
          <textarea
            id="field-stop"
            class="stop"
            spellcheck="false"
            aria-describedby="stop-hint"
            .value=${live(formatStop(s.stop))}
            @change=${(e: Event) =>
              this.change({ stop: parseStop((e.target as HTMLTextAreaElement).value) })}
          ></textarea>
          <span class="hint" id="stop-hint">
            One per line; the answer ends before the first one. Write \\n for a newline.
          </span>
        </div>
      </section>
      <section class="section" aria-labelledby="structured-heading">
        <h2 id="structured-heading">Output format</h2>
        ${this.toggle(
          'structured-output',
          'Structured output',
          'Answers are JSON valid against this JSON Schema (sent as response_format json_schema).',
          s.structuredOutput,
          (on) => this.change({ structuredOutput: on }),
        )}
        ${
          s.structuredOutput
            ? html`<lmtab-json-editor
                label="JSON Schema"
                valid="Valid JSON Schema"
                .value=${s.jsonSchema}
                .check=${checkJsonSchemaText}
                @json-edit=${(e: CustomEvent<{ text: string; final: boolean }>) =>
                  this.change({ jsonSchema: e.detail.text }, e.detail.final)}
              ></lmtab-json-editor>`
            : null
        }
      </section>
      <section class="section" aria-labelledby="tools-heading">
        <h2 id="tools-heading">Tools</h2>
        ${this.toggle(
          'tools',
          'Offer tools',
          'The model may call these functions (OpenAI tools); you type what each call returned.',
          s.toolsEnabled,
          (on) => this.change({ toolsEnabled: on }),
        )}
        ${
          s.toolsEnabled
            ? html`${fieldFrame(
                  'field-tool-choice',
                  'Tool choice',
                  'auto lets the model choose; required makes it call one; none forbids calls.',
                  html`<select
                    id="field-tool-choice"
                    aria-describedby="field-tool-choice-hint"
                    .value=${live(s.toolChoice)}
                    @change=${(e: Event) =>
                      this.change({
                        toolChoice: (e.target as HTMLSelectElement).value as ToolChoiceSetting,
                      })}
                  >
                    <option value="auto">auto</option>
                    <option value="required">required</option>
                    <option value="none">none</option>
                  </select>`,
                )}
                <lmtab-json-editor
                  label="Tool definitions"
                  valid="Valid tool list"
                  .value=${s.tools}
                  .check=${checkToolsText}
                  @json-edit=${(e: CustomEvent<{ text: string; final: boolean }>) =>
                    this.change({ tools: e.detail.text }, e.detail.final)}
                ></lmtab-json-editor>`
            : null
        }
      </section>
    `;
  }
}

customElements.define('lmtab-chat-settings', LmtabChatSettings);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-chat-settings': LmtabChatSettings;
  }
}
