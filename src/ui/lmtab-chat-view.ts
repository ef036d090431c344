import { LitElement, css, html } from 'lit';
import { readSse } from './read-sse.js';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  stats?: string;
  error?: string;
}

interface ChatChunk {
  choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
  usage?: { completion_tokens: number };
  error?: { message: string };
}

/** A conversation with one model through the page's own `/v1/chat/completions`. */
export class LmtabChatView extends LitElement {
  static override properties = {
    models: { attribute: false },
    model: { state: true },
    turns: { state: true },
    busy: { state: true },
  };

  declare models: string[];
  declare model: string;
  declare turns: Turn[];
  declare busy: boolean;
  private controller: AbortController | undefined;

  constructor() {
    super();
    this.models = [];
    this.model = '';
    this.turns = [];
    this.busy = false;
  }

  static override styles = css`
    :host {
      display: flex;
      flex-direction: column;
      gap: 0.75rem;
      min-height: 0;
    }
    .log {
      flex: 1;
      overflow-y: auto;
      display: flex;
      flex-direction: column;
      gap: 0.5rem;
    }
    .turn {
      padding: 0.5rem 0.75rem;
      border-radius: 8px;
      white-space: pre-wrap;
      max-width: 48rem;
    }
    .user {
      align-self: flex-end;
      background: color-mix(in srgb, #3b5bdb 18%, transparent);
    }
    .assistant {
      align-self: flex-start;
      background: color-mix(in srgb, currentColor 8%, transparent);
    }
    .stats {
      font-size: 0.75rem;
      opacity: 0.7;
      margin-top: 0.25rem;
    }
    .error {
      color: #c92a2a;
    }
    form {
      display: flex;
      gap: 0.5rem;
      align-items: flex-end;
    }
    textarea {
      flex: 1;
      min-height: 3rem;
      font: inherit;
      padding: 0.5rem;
    }
    button {
      font: inherit;
      padding: 0.5rem 1rem;
    }
  `;

  override willUpdate() {
    if (!this.models.includes(this.model)) this.model = this.models[0] ?? '';
  }

  private async send(event: Event) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const box = form.elements.namedItem('message') as HTMLTextAreaElement;
    const text = box.value.trim();
    if (!text || !this.model || this.busy) return;
    box.value = '';
    const history = [
      ...this.turns.filter((t) => !t.error),
      { role: 'user' as const, content: text },
    ];
    const answer: Turn = { role: 'assistant', content: '' };
    this.turns = [...history, answer];
    this.busy = true;
    this.controller = new AbortController();
    const started = performance.now();
    let firstToken = 0;
    try {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model: this.model,
          messages: history.map(({ role, content }) => ({ role, content })),
          stream: true,
          stream_options: { include_usage: true },
        }),
        signal: this.controller.signal,
      });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
        throw new Error(body.error?.message ?? `The API answered ${response.status}.`);
      }
      let tokens = 0;
      let finish = '';
      for await (const chunk of readSse<ChatChunk>(response.body)) {
        if (chunk.error) throw new Error(chunk.error.message);
        const delta = chunk.choices[0]?.delta.content ?? '';
        if (delta && !firstToken) firstToken = performance.now() - started;
        answer.content += delta;
        finish = chunk.choices[0]?.finish_reason ?? finish;
        tokens = chunk.usage?.completion_tokens ?? tokens;
        this.turns = [...this.turns];
      }
      const seconds = (performance.now() - started - firstToken) / 1000;
      answer.stats = `${tokens} tokens · ${(tokens / Math.max(seconds, 1e-3)).toFixed(1)} tok/s · first token ${Math.round(firstToken)} ms · ${finish}`;
    } catch (error) {
      if (this.controller.signal.aborted) answer.stats = 'stopped';
      else answer.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.busy = false;
      this.turns = [...this.turns];
    }
  }

  override render() {
    return html`
      <label>
        Model
        <select
          aria-label="Model"
          .value=${this.model}
          @change=${(e: Event) => (this.model = (e.target as HTMLSelectElement).value)}
        >
          ${this.models.map((m) => html`<option value=${m} ?selected=${m === this.model}>${m}</option>`)}
        </select>
      </label>
      <div class="log" role="log" aria-live="polite">
        ${this.turns.map(
          (t) =>
            html`<div class="turn ${t.role}" data-role=${t.role}>
              ${t.content}
              ${t.error ? html`<div class="error" role="alert">${t.error}</div>` : null}
              ${t.stats ? html`<div class="stats">${t.stats}</div>` : null}
            </div>`,
        )}
      </div>
      <form @submit=${this.send}>
        <textarea
          name="message"
          aria-label="Message"
          placeholder=${this.model ? `Message ${this.model}` : 'Import a model first'}
          @keydown=${(e: KeyboardEvent) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              (e.target as HTMLTextAreaElement).form?.requestSubmit();
            }
          }}
        ></textarea>
        ${
          this.busy
            ? html`<button type="button" @click=${() => this.controller?.abort()}>Stop</button>`
            : html`<button type="submit" ?disabled=${!this.model}>Send</button>`
        }
      </form>
    `;
  }
}

customElements.define('lmtab-chat-view', LmtabChatView);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-chat-view': LmtabChatView;
  }
}
