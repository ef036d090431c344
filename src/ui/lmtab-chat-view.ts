import { LitElement, css, html, nothing } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ModelRecord } from '../store/index.js';
import { buildChatRequest } from './build-chat-request.js';
import { defaultChatSettings, type ChatSettings } from './chat-settings.js';
import { controlStyles } from './control-styles.js';
import type { ChatTurn, Conversation, TurnStats } from './conversation.js';
import type { ConversationStore } from './conversation-store.js';
import { fetchEngineStatus } from './fetch-engine-status.js';
import { icons } from './icons.js';
import type { LmtabChatComposer } from './lmtab-chat-composer.js';
import type { ModelLoad } from './lmtab-model-picker.js';
import { readApiError } from './read-api-error.js';
import { readSse } from './read-sse.js';
import './lmtab-chat-composer.js';
import './lmtab-chat-message.js';
import './lmtab-chat-settings.js';
import './lmtab-conversation-list.js';
import './lmtab-model-picker.js';
import { isEmbeddingOnly } from '../engine/index.js';

/** The `chat.completion.chunk` fields the Chat tab reads. */
interface ChatChunk {
  choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  error?: { message: string };
}

const newTitle = 'New chat';
/** Seconds between checks of which models the engine holds, while the tab shows. */
const residentPollMs = 15_000;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The model to offer first: the chat model used last, else the newest (never an embedding model). */
function preferredModel(all: ModelRecord[]): string {
  const models = all.filter((m) => !isEmbeddingOnly(m.gguf));
  const used = models
    .filter((m) => m.lastUsedAt !== undefined)
    .sort((a, b) => b.lastUsedAt! - a.lastUsedAt!);
  return used[0]?.id ?? models[0]?.id ?? '';
}

/** Whether the settings sidebar covers the chat (narrow windows) rather than sitting beside it. */
const settingsOverlay = () => !(globalThis.matchMedia?.('(min-width: 1100px)').matches ?? true);
/** Whether the chats list is a drawer (phones). */
const chatsOverlay = () => globalThis.matchMedia?.('(max-width: 759px)').matches ?? false;

function titleFrom(text: string): string {
  const line = text.split('\n')[0]!.trim();
  if (line === '') return 'Image';
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/**
 * The Chat tab: conversations (saved in IndexedDB), the model dropdown that loads on choice, the
 * streamed answers from the page's own `/v1/chat/completions`, and the settings sidebar.
 */
export class LmtabChatView extends LitElement {
  static override properties = {
    models: { attribute: false },
    conversations: { attribute: false },
    active: { type: Boolean },
    list: { state: true },
    currentId: { state: true },
    model: { state: true },
    streamingId: { state: true },
    load: { state: true },
    resident: { state: true },
    chatsOpen: { state: true },
    settingsOpen: { state: true },
    dragging: { state: true },
    notice: { state: true },
  };

  /** The stored models (complete ones). */
  declare models: ModelRecord[];
  /** Where conversations are saved; without one they last until the page closes. */
  declare conversations: ConversationStore | undefined;
  /** Whether the tab shows (it checks the engine only then). */
  declare active: boolean;
  declare list: Conversation[];
  declare currentId: string;
  declare model: string;
  /** Id of the answer being generated, or empty. */
  declare streamingId: string;
  declare load: ModelLoad | undefined;
  /** Models the engine holds now. */
  declare resident: string[];
  declare chatsOpen: boolean;
  declare settingsOpen: boolean;
  declare dragging: boolean;
  /** A problem outside any answer (saving, reading conversations). */
  declare notice: string;
  private controller: AbortController | undefined;
  private loadController: AbortController | undefined;
  private poll: ReturnType<typeof setInterval> | undefined;
  private loadedStore: ConversationStore | undefined;
  private stickToBottom = true;

  constructor() {
    super();
    this.models = [];
    this.active = false;
    this.list = [];
    this.currentId = '';
    this.model = '';
    this.streamingId = '';
    this.resident = [];
    this.chatsOpen = false;
    this.settingsOpen = !settingsOverlay();
    this.dragging = false;
    this.notice = '';
    this.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      if (this.chatsOpen) this.toggleChats(false);
      else if (this.settingsOpen && settingsOverlay()) this.toggleSettings(false);
    });
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: grid;
        grid-template-columns: 16rem minmax(0, 1fr) auto;
        height: 100%;
        min-height: 0;
        position: relative;
        overflow: hidden;
      }
      .chats {
        display: flex;
        flex-direction: column;
        min-height: 0;
        border-right: 1px solid var(--lm-border);
        background: var(--lm-surface);
      }
      .chats lmtab-conversation-list {
        flex: 1;
      }
      .settings {
        width: 20rem;
        display: flex;
        flex-direction: column;
        min-height: 0;
        border-left: 1px solid var(--lm-border);
        background: var(--lm-surface);
      }
      .settings[hidden] {
        display: none;
      }
      .panel-head {
        display: flex;
        align-items: center;
        justify-content: space-between;
        padding: 0.6rem 0.75rem 0 1rem;
      }
      .panel-head h2 {
        font-size: 0.95rem;
      }
      lmtab-chat-settings {
        flex: 1;
        min-height: 0;
      }
      .main {
        position: relative;
        display: flex;
        flex-direction: column;
        min-width: 0;
        min-height: 0;
      }
      .top {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        padding: 0.6rem 1rem;
        border-bottom: 1px solid var(--lm-border);
        background: var(--lm-surface);
        min-height: 3.4rem;
      }
      .top lmtab-model-picker {
        flex: 1;
      }
      .only-narrow {
        display: none;
      }
      .log {
        flex: 1;
        overflow-y: auto;
        min-height: 0;
        scroll-behavior: smooth;
      }
      .thread {
        display: flex;
        flex-direction: column;
        gap: 1.4rem;
        max-width: 50rem;
        margin: 0 auto;
        padding: 1.5rem 1.25rem 1rem;
      }
      .compose {
        padding: 0 1.25rem 0.9rem;
        max-width: 52.5rem;
        width: 100%;
        margin: 0 auto;
      }
      .empty {
        margin: auto;
        max-width: 28rem;
        padding: 3rem 1.5rem;
        text-align: center;
      }
      .empty .mark {
        display: inline-flex;
        padding: 0.8rem;
        border-radius: 1rem;
        background: var(--lm-accent-soft);
        color: var(--lm-accent-on-soft);
      }
      .empty .mark svg {
        width: 1.8rem;
        height: 1.8rem;
      }
      .empty h2 {
        margin: 1rem 0 0.5rem;
        font-size: 1.2rem;
      }
      .empty p {
        margin: 0 0 1.25rem;
        color: var(--lm-muted);
        line-height: 1.5;
      }
      .links {
        display: flex;
        gap: 0.5rem;
        justify-content: center;
        flex-wrap: wrap;
      }
      a.button {
        display: inline-flex;
        align-items: center;
        gap: 0.4rem;
        padding: 0.5rem 0.9rem;
        border-radius: var(--lm-radius-sm);
        border: 1px solid var(--lm-border);
        color: inherit;
        text-decoration: none;
        font-size: 0.875rem;
        font-weight: 500;
        background: var(--lm-surface);
      }
      a.button.primary {
        background: var(--lm-accent);
        border-color: var(--lm-accent);
        color: var(--lm-accent-text);
      }
      .notice {
        margin: 0.75rem 1rem 0;
        padding: 0.6rem 0.8rem;
        border-radius: var(--lm-radius-sm);
        background: var(--lm-danger-soft);
        font-size: 0.875rem;
      }
      .drop {
        position: absolute;
        inset: 0.5rem;
        z-index: 5;
        display: grid;
        place-items: center;
        border: 2px dashed var(--lm-accent);
        border-radius: var(--lm-radius);
        background: color-mix(in srgb, var(--lm-bg) 85%, transparent);
        font-weight: 600;
        color: var(--lm-accent-on-soft);
        pointer-events: none;
      }
      .scrim {
        display: none;
      }
      @media (max-width: 1099px) {
        :host {
          grid-template-columns: 15rem minmax(0, 1fr);
        }
        .settings {
          position: absolute;
          top: 0;
          right: 0;
          bottom: 0;
          z-index: 20;
          width: min(20rem, 100%);
          box-shadow: var(--lm-shadow);
        }
        .scrim.show {
          display: block;
          position: absolute;
          inset: 0;
          z-index: 15;
          background: rgb(0 0 0 / 0.35);
        }
      }
      @media (max-width: 759px) {
        :host {
          grid-template-columns: minmax(0, 1fr);
        }
        .chats {
          display: none;
        }
        .chats.open {
          display: flex;
          position: absolute;
          top: 0;
          left: 0;
          bottom: 0;
          z-index: 20;
          width: min(18rem, 85%);
          box-shadow: var(--lm-shadow);
        }
        .only-narrow {
          display: inline-flex;
        }
        .top {
          padding: 0.5rem 0.6rem;
          gap: 0.35rem;
        }
        .thread {
          padding: 1rem 0.75rem 0.75rem;
        }
        .compose {
          padding: 0 0.6rem 0.6rem;
        }
      }
    `,
  ];

  private get current(): Conversation | undefined {
    return this.list.find((c) => c.id === this.currentId);
  }

  private get busy(): boolean {
    return this.streamingId !== '';
  }

  override connectedCallback() {
    super.connectedCallback();
    if (this.active) this.startPolling();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.stopPolling();
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('models') && !this.models.some((m) => m.id === this.model)) {
      this.model = preferredModel(this.models);
    }
    // Without a store (none given yet) the first update still opens a chat, kept in memory.
    if (
      !this.hasUpdated ||
      (changed.has('conversations') && this.conversations !== this.loadedStore)
    ) {
      this.loadedStore = this.conversations;
      void this.loadConversations();
    }
    if (changed.has('active')) {
      if (this.active) this.startPolling();
      else this.stopPolling();
    }
  }

  override updated(changed: Map<string, unknown>) {
    if (changed.has('list') || changed.has('currentId')) {
      const log = this.renderRoot.querySelector('.log');
      if (log && (this.stickToBottom || changed.has('currentId'))) log.scrollTop = log.scrollHeight;
    }
  }

  private startPolling() {
    if (this.poll) return;
    void this.refreshResident();
    this.poll = setInterval(() => void this.refreshResident(), residentPollMs);
  }

  private stopPolling() {
    clearInterval(this.poll);
    this.poll = undefined;
  }

  private async refreshResident() {
    try {
      const status = await fetchEngineStatus();
      this.resident = status.loaded.map((l) => l.model);
    } catch {
      // The engine is restarting or another tab is taking over: the next check will tell.
    }
  }

  private async loadConversations() {
    const store = this.conversations;
    let saved: Conversation[] = [];
    try {
      saved = (await store?.list()) ?? [];
    } catch (error) {
      this.notice = `Saved chats could not be read: ${errorText(error)}`;
    }
    // Keep a conversation started before the saved ones arrived.
    const unsaved = this.list.filter((c) => !saved.some((s) => s.id === c.id));
    this.list = [...unsaved, ...saved];
    if (!this.current) {
      if (this.list.length > 0) this.currentId = this.list[0]!.id;
      else this.newConversation();
    }
  }

  private async save(conversation: Conversation) {
    try {
      await this.conversations?.save(conversation);
    } catch (error) {
      this.notice = `This chat could not be saved: ${errorText(error)}`;
    }
  }

  /** Replaces a conversation with `change(it)`, and saves it unless told not to. */
  private patch(id: string, change: (c: Conversation) => Conversation, persist = true) {
    let next: Conversation | undefined;
    this.list = this.list.map((c) => (c.id === id ? (next = change(c)) : c));
    if (next && persist) void this.save(next);
  }

  private patchTurn(id: string, turnId: string, change: Partial<ChatTurn>, persist = false) {
    this.patch(
      id,
      (c) => ({ ...c, turns: c.turns.map((t) => (t.id === turnId ? { ...t, ...change } : t)) }),
      persist,
    );
  }

  private newConversation() {
    const current = this.current;
    this.chatsOpen = false;
    if (current && current.turns.length === 0) {
      this.focusComposer();
      return;
    }
    const now = Date.now();
    const conversation: Conversation = {
      id: crypto.randomUUID(),
      title: newTitle,
      renamed: false,
      createdAt: now,
      updatedAt: now,
      // A new chat keeps the sampling settings of the one before it.
      settings: { ...defaultChatSettings, ...current?.settings },
      turns: [],
    };
    this.list = [conversation, ...this.list];
    this.currentId = conversation.id;
    void this.save(conversation);
    this.focusComposer();
  }

  private async deleteConversation(id: string) {
    if (this.streamingId && this.current?.id === id) this.controller?.abort();
    this.list = this.list.filter((c) => c.id !== id);
    try {
      await this.conversations?.delete(id);
    } catch (error) {
      this.notice = `The chat could not be deleted: ${errorText(error)}`;
    }
    if (this.currentId === id) {
      if (this.list.length > 0) this.currentId = this.list[0]!.id;
      else this.newConversation();
    }
  }

  /** Opens or closes the chats drawer, moving focus into it and back to its button. */
  private async toggleChats(open: boolean) {
    this.chatsOpen = open;
    await this.updateComplete;
    if (!chatsOverlay()) return;
    const target = open
      ? this.renderRoot.querySelector<HTMLElement>('lmtab-conversation-list')
      : this.renderRoot.querySelector<HTMLElement>('[data-toggle="chats"]');
    target?.focus();
  }

  /** Opens or closes the settings sidebar; as an overlay it takes focus and gives it back. */
  private async toggleSettings(open: boolean) {
    this.settingsOpen = open;
    await this.updateComplete;
    if (!settingsOverlay()) return;
    const target = open
      ? this.renderRoot.querySelector<HTMLElement>('[data-close="settings"]')
      : this.renderRoot.querySelector<HTMLElement>('[data-toggle="settings"]');
    target?.focus();
  }

  private focusComposer() {
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<LmtabChatComposer>('lmtab-chat-composer')?.focus(),
    );
  }

  private async loadModel(model: string) {
    this.loadController?.abort();
    const controller = new AbortController();
    this.loadController = controller;
    const startedAt = performance.now();
    this.load = { model, phase: 'loading', startedAt };
    try {
      // A generate request without a prompt loads the model, as Ollama's does.
      const response = await fetch('/api/generate', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model, stream: false }),
        signal: controller.signal,
      });
      if (!response.ok) throw new Error(await readApiError(response));
      await response.json();
      const ms = performance.now() - startedAt;
      await this.refreshResident();
      if (this.loadController === controller) this.load = { model, phase: 'loaded', startedAt, ms };
    } catch (error) {
      if (controller.signal.aborted) return;
      this.load = {
        model,
        phase: 'error',
        startedAt,
        error: `Loading ${model} failed: ${errorText(error)}`,
      };
    }
  }

  private async ejectModel(model: string) {
    try {
      const response = await fetch('/api/generate', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model, keep_alive: 0, stream: false }),
      });
      if (!response.ok) throw new Error(await readApiError(response));
      await response.json();
      this.load = undefined;
    } catch (error) {
      this.notice = `${model} could not be unloaded: ${errorText(error)}`;
    }
    await this.refreshResident();
  }

  private send(text: string, images: string[]) {
    const conversation = this.current;
    if (!conversation || !this.model || this.busy) return;
    const turn: ChatTurn = { id: crypto.randomUUID(), role: 'user', content: text };
    if (images.length > 0) turn.images = images;
    const first = !conversation.renamed && conversation.turns.length === 0;
    this.stickToBottom = true;
    this.patch(conversation.id, (c) => ({
      ...c,
      title: first ? titleFrom(text) : c.title,
      updatedAt: Date.now(),
      turns: [...c.turns, turn],
    }));
    void this.generate(conversation.id);
  }

  private regenerate() {
    const conversation = this.current;
    if (!conversation || this.busy || !this.model) return;
    const last = conversation.turns.at(-1);
    if (last?.role !== 'assistant') return;
    this.patch(conversation.id, (c) => ({ ...c, turns: c.turns.slice(0, -1) }), false);
    void this.generate(conversation.id);
  }

  /** Streams the next answer of a conversation from `/v1/chat/completions`. */
  private async generate(conversationId: string) {
    const conversation = this.list.find((c) => c.id === conversationId);
    if (!conversation) return;
    const model = this.model;
    const answer: ChatTurn = { id: crypto.randomUUID(), role: 'assistant', content: '', model };
    const body = buildChatRequest(model, conversation.settings, conversation.turns);
    this.patch(conversationId, (c) => ({ ...c, turns: [...c.turns, answer] }), false);
    this.streamingId = answer.id;
    const controller = new AbortController();
    this.controller = controller;
    const started = performance.now();
    let first = 0;
    let last = 0;
    let chunks = 0;
    let content = '';
    let finish: string | undefined;
    let usage: ChatChunk['usage'];
    let error: string | undefined;
    let frame = 0;
    try {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      if (!response.ok || !response.body) throw new Error(await readApiError(response));
      for await (const chunk of readSse<ChatChunk>(response.body)) {
        if (chunk.error) throw new Error(chunk.error.message);
        const choice = chunk.choices?.[0];
        const delta = choice?.delta?.content ?? '';
        if (delta !== '') {
          last = performance.now();
          if (first === 0) first = last;
          chunks += 1;
          content += delta;
          // One render per frame however fast tokens come: the engine needs the CPU more.
          if (frame === 0) {
            frame = requestAnimationFrame(() => {
              frame = 0;
              this.patchTurn(conversationId, answer.id, { content });
            });
          }
        }
        finish = choice?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      if (finish === undefined) throw new Error('The answer ended without a finish reason.');
    } catch (caught) {
      if (!controller.signal.aborted) error = errorText(caught);
    }
    cancelAnimationFrame(frame);
    const end = performance.now();
    const stopped = controller.signal.aborted;
    let stats: TurnStats | undefined;
    if (first > 0 || stopped) {
      const tokens = usage?.completion_tokens ?? chunks;
      const decodeSeconds = (last - first) / 1000;
      stats = {
        tokens,
        promptTokens: usage?.prompt_tokens,
        // Tokens after the first, over the time between the first and the last.
        tokensPerSecond:
          tokens > 1 && decodeSeconds > 0
            ? (tokens - 1) / decodeSeconds
            : tokens / Math.max((end - started) / 1000, 1e-3),
        timeToFirstTokenMs: first > 0 ? first - started : end - started,
        totalMs: end - started,
        finishReason: stopped ? 'stopped' : finish === 'length' ? 'length' : 'stop',
      };
    }
    this.patch(conversationId, (c) => ({
      ...c,
      updatedAt: Date.now(),
      turns: c.turns.map((t) =>
        t.id === answer.id
          ? { ...t, content, ...(stats ? { stats } : {}), ...(error ? { error } : {}) }
          : t,
      ),
    }));
    if (this.controller === controller) this.controller = undefined;
    this.streamingId = '';
    void this.refreshResident();
  }

  private onDragOver(event: DragEvent) {
    if (!event.dataTransfer?.types.includes('Files') || !this.model) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    this.dragging = true;
  }

  private onDrop(event: DragEvent) {
    if (!event.dataTransfer?.files.length) return;
    event.preventDefault();
    this.dragging = false;
    void this.renderRoot
      .querySelector<LmtabChatComposer>('lmtab-chat-composer')
      ?.attachFiles([...event.dataTransfer.files]);
  }

  private renderEmpty() {
    if (this.models.length === 0) {
      return html`<div class="empty">
        <span class="mark">${icons.models}</span>
        <h2>No model yet</h2>
        <p>
          Models run right here in this tab. Download one from Hugging Face in Discover, or import a
          GGUF file you already have in My Models.
        </p>
        <div class="links">
          <a class="button primary" href="#discover">${icons.discover} Discover models</a>
          <a class="button" href="#models">${icons.upload} Import a file</a>
        </div>
      </div>`;
    }
    return html`<div class="empty">
      <span class="mark">${icons.chat}</span>
      <h2>Chat with ${this.model}</h2>
      <p>
        Answers are generated in this tab, on ${this.resident.includes(this.model) ? 'the' : 'a'}
        model loaded from your browser's storage. Nothing leaves this device.
      </p>
    </div>`;
  }

  private renderThread(conversation: Conversation) {
    const lastIndex = conversation.turns.length - 1;
    return html`<div class="thread">
      ${repeat(
        conversation.turns,
        (t) => t.id,
        (t, i) =>
          html`<lmtab-chat-message
            data-role=${t.role}
            .content=${t.content}
            .images=${t.images ?? []}
            .model=${t.model ?? ''}
            .stats=${t.stats}
            .error=${t.error ?? ''}
            ?streaming=${t.id === this.streamingId}
            ?can-regenerate=${i === lastIndex && t.role === 'assistant' && !this.busy}
          ></lmtab-chat-message>`,
      )}
    </div>`;
  }

  override render() {
    const conversation = this.current;
    const record = this.models.find((m) => m.id === this.model);
    // Conversations saved before a setting existed take its default.
    const settings: ChatSettings = { ...defaultChatSettings, ...conversation?.settings };
    const overlay = this.chatsOpen || this.settingsOpen;
    return html`
      <aside class="chats ${this.chatsOpen ? 'open' : ''}" aria-label="Chats">
        <lmtab-conversation-list
          .conversations=${this.list}
          current=${this.currentId}
          @conversation-new=${() => this.newConversation()}
          @conversation-select=${(e: CustomEvent<{ id: string }>) => {
            this.currentId = e.detail.id;
            this.chatsOpen = false;
            this.stickToBottom = true;
          }}
          @conversation-rename=${(e: CustomEvent<{ id: string; title: string }>) =>
            this.patch(e.detail.id, (c) => ({ ...c, title: e.detail.title, renamed: true }))}
          @conversation-delete=${(e: CustomEvent<{ id: string }>) =>
            this.deleteConversation(e.detail.id)}
        ></lmtab-conversation-list>
      </aside>
      <section
        class="main"
        aria-label="Conversation"
        @dragover=${this.onDragOver}
        @dragleave=${(e: DragEvent) => {
          if (!(e.currentTarget as Element).contains(e.relatedTarget as Node))
            this.dragging = false;
        }}
        @drop=${this.onDrop}
      >
        <div class="top">
          <button
            class="ghost icon only-narrow"
            type="button"
            aria-label="Chats"
            data-toggle="chats"
            aria-expanded=${this.chatsOpen ? 'true' : 'false'}
            @click=${() => this.toggleChats(!this.chatsOpen)}
          >
            ${icons.list}
          </button>
          <lmtab-model-picker
            .models=${this.models}
            value=${this.model}
            ?resident=${this.resident.includes(this.model)}
            .load=${this.load}
            ?disabled=${this.busy}
            @model-change=${(e: CustomEvent<{ model: string }>) => {
              this.model = e.detail.model;
              void this.loadModel(e.detail.model);
            }}
            @model-load=${(e: CustomEvent<{ model: string }>) => this.loadModel(e.detail.model)}
            @model-eject=${(e: CustomEvent<{ model: string }>) => this.ejectModel(e.detail.model)}
          ></lmtab-model-picker>
          <button
            class="ghost icon"
            type="button"
            aria-label="Chat settings"
            title="Chat settings"
            data-toggle="settings"
            aria-expanded=${this.settingsOpen ? 'true' : 'false'}
            @click=${() => this.toggleSettings(!this.settingsOpen)}
          >
            ${icons.sliders}
          </button>
        </div>
        ${
          this.notice
            ? html`<p class="notice error" role="alert">
                ${this.notice}
                <button class="ghost small" type="button" @click=${() => (this.notice = '')}>
                  Dismiss
                </button>
              </p>`
            : nothing
        }
        <div
          class="log"
          role="log"
          aria-label="Chat transcript"
          @regenerate=${() => this.regenerate()}
          @scroll=${(e: Event) => {
            const log = e.target as HTMLElement;
            this.stickToBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 48;
          }}
        >
          ${
            conversation && conversation.turns.length > 0
              ? this.renderThread(conversation)
              : this.renderEmpty()
          }
        </div>
        <div class="compose">
          <lmtab-chat-composer
            ?disabled=${!this.model}
            ?busy=${this.busy}
            model=${this.model}
            ?images-allowed=${record?.projector !== undefined}
            placeholder=${this.model ? `Send a message to ${this.model}` : 'Add a model first'}
            @send=${(e: CustomEvent<{ text: string; images: string[] }>) =>
              this.send(e.detail.text, e.detail.images)}
            @stop=${() => this.controller?.abort()}
          ></lmtab-chat-composer>
        </div>
        ${this.dragging ? html`<div class="drop">Drop images to attach</div>` : nothing}
      </section>
      <div
        class="scrim ${overlay ? 'show' : ''}"
        aria-hidden="true"
        @click=${() => {
          this.chatsOpen = false;
          this.settingsOpen = false;
        }}
      ></div>
      <aside class="settings" aria-labelledby="settings-heading" ?hidden=${!this.settingsOpen}>
        <div class="panel-head">
          <h2 id="settings-heading">Chat settings</h2>
          <button
            class="ghost icon small"
            type="button"
            aria-label="Close chat settings"
            data-close="settings"
            @click=${() => this.toggleSettings(false)}
          >
            ${icons.close}
          </button>
        </div>
        <lmtab-chat-settings
          .settings=${settings}
          @settings-change=${(e: CustomEvent<{ settings: ChatSettings }>) => {
            if (conversation) {
              this.patch(conversation.id, (c) => ({ ...c, settings: e.detail.settings }));
            }
          }}
        ></lmtab-chat-settings>
      </aside>
    `;
  }
}

customElements.define('lmtab-chat-view', LmtabChatView);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-chat-view': LmtabChatView;
  }
}
