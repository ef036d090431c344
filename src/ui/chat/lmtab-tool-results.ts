import { LitElement, css, html } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { controlStyles } from '../shared/control-styles.js';
import type { TurnToolCall } from './conversation.js';
import { icons } from '../shared/icons.js';

/** Longest arguments text shown beside a call's name before it is cut. */
const argumentsShown = 80;

/**
 * The tool-result composer: the last answer called functions the Chat tab cannot run, so the
 * person types what each returned. Fires `tool-results` with `{results}` (one text per call, in
 * order) once every call has one.
 */
export class LmtabToolResults extends LitElement {
  static override properties = {
    calls: { attribute: false },
    disabled: { type: Boolean },
    missing: { state: true },
  };

  /** The calls waiting for a result. */
  declare calls: TurnToolCall[];
  /** No model to send to, or an answer is generating. */
  declare disabled: boolean;
  /** Whether Send was pressed with a result left empty. */
  declare missing: boolean;

  constructor() {
    super();
    this.calls = [];
    this.disabled = false;
    this.missing = false;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
        margin-bottom: 0.6rem;
      }
      form {
        display: flex;
        flex-direction: column;
        gap: 0.5rem;
        padding: 0.6rem 0.7rem;
        border: 1px solid var(--lm-accent);
        border-radius: var(--lm-radius);
        background: var(--lm-surface);
      }
      h3 {
        margin: 0;
        font-size: 0.85rem;
      }
      label {
        display: block;
        font-size: 0.8rem;
        margin-bottom: 0.2rem;
        overflow-wrap: anywhere;
      }
      code {
        font-family: var(--lm-mono);
      }
      textarea {
        min-height: 2.6rem;
        font-family: var(--lm-mono);
        font-size: 0.82rem;
      }
      .bar {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        justify-content: flex-end;
      }
      .bar .error {
        margin-right: auto;
        font-size: 0.8rem;
      }
    `,
  ];

  private submit(event: Event) {
    event.preventDefault();
    if (this.disabled) return;
    const boxes = [...this.renderRoot.querySelectorAll('textarea')];
    const results = boxes.map((box) => box.value);
    this.missing = results.some((r) => r.trim() === '');
    if (this.missing) return;
    this.dispatchEvent(
      new CustomEvent('tool-results', { detail: { results }, bubbles: true, composed: true }),
    );
  }

  override render() {
    const count = this.calls.length;
    return html`<form @submit=${this.submit} aria-labelledby="tool-results-heading">
      <h3 id="tool-results-heading">
        The model called ${count === 1 ? 'a function' : `${count} functions`}. Type what
        ${count === 1 ? 'it' : 'each'} returned:
      </h3>
      ${repeat(
        this.calls,
        (call) => call.id,
        (call, i) => {
          const args =
            call.arguments.length > argumentsShown
              ? `${call.arguments.slice(0, argumentsShown - 1)}…`
              : call.arguments;
          return html`<div>
            <label for="result-${i}"><code>${call.name}(${args})</code></label>
            <textarea
              id="result-${i}"
              aria-label="Result of ${call.name}"
              spellcheck="false"
              placeholder="What it returned: JSON or text"
            ></textarea>
          </div>`;
        },
      )}
      <div class="bar">
        ${
          this.missing
            ? html`<span class="error" role="alert">Give every call a result.</span>`
            : null
        }
        <button class="primary" type="submit" ?disabled=${this.disabled}>
          Send ${count === 1 ? 'result' : 'results'} ${icons.send}
        </button>
      </div>
    </form>`;
  }
}

customElements.define('lmtab-tool-results', LmtabToolResults);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-tool-results': LmtabToolResults;
  }
}
