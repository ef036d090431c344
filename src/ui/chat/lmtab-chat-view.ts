import { LitElement, html, nothing } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ModelRecord, ProjectorMedia } from '../../store/index.js';
import { chatViewStyles } from './chat-view-styles.js';
import { settingsProblem } from './build-chat-request.js';
import { defaultChatSettings, type ChatSettings } from './settings/chat-settings.js';
import { controlStyles } from '../shared/control-styles.js';
import type { Conversation, TurnToolCall } from './conversation.js';
import type { ConversationStore } from './conversation-store.js';
import { Conversations } from './conversations.js';
import { AnswerGenerator, type AnswerGeneratorHost } from './answer-generator.js';
import { ResidentModels } from './resident-models.js';
import { createApiClient, type ApiClient } from '../client/api-client.js';
import { icons } from '../shared/icons.js';
import type { LmtabChatComposer } from './lmtab-chat-composer.js';
import { startTalk } from './voice/talk.js';
import type { VoiceSession } from './voice/voice-session.js';
import './lmtab-chat-composer.js';
import './lmtab-chat-message.js';
import './settings/lmtab-chat-settings.js';
import './lmtab-conversation-list.js';
import './lmtab-model-picker.js';
import './lmtab-tool-results.js';
import { isEmbeddingOnly } from '../../engine/index.js';

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

/** The calls of the last answer that still wait for the person to type their results. */
function pendingCalls(conversation: Conversation | undefined): TurnToolCall[] {
  const last = conversation?.turns.at(-1);
  if (last?.role !== 'assistant' || last.error !== undefined) return [];
  return (last.toolCalls ?? []).filter((c) => c.result === undefined);
}

/**
 * The Chat tab: conversations (saved in IndexedDB), the model dropdown that loads on choice, the
 * streamed answers from the page's own `/v1/chat/completions`, and the settings sidebar.
 */
export class LmtabChatView extends LitElement {
  static override properties = {
    models: { attribute: false },
    media: { attribute: false },
    conversations: { attribute: false },
    api: { attribute: false },
    active: { type: Boolean },
    model: { state: true },
    streamingId: { state: true },
    voice: { state: true },
    chatsOpen: { state: true },
    settingsOpen: { state: true },
    dragging: { state: true },
    notice: { state: true },
  };

  /** The stored models (complete ones). */
  declare models: ModelRecord[];
  /** What each model's projector adds, by model id (read by the app from the projectors' headers). */
  declare media: Record<string, ProjectorMedia>;
  /** Where conversations are saved; without one they last until the page closes. */
  declare conversations: ConversationStore | undefined;
  /** The page's API: loads, unloads, answers and the engine's resident models. */
  declare api: ApiClient;
  /** Whether the tab shows (it checks the engine only then). */
  declare active: boolean;
  declare model: string;
  /** Id of the answer being generated, or empty. */
  declare streamingId: string;
  /** The voice conversation in progress (the Talk button's), if any. */
  declare voice: VoiceSession | undefined;
  declare chatsOpen: boolean;
  declare settingsOpen: boolean;
  declare dragging: boolean;
  /** A problem outside any answer (saving, reading conversations). */
  declare notice: string;
  private loadedStore: ConversationStore | undefined;
  /** The conversations and which one shows (saved in `conversations`). */
  private readonly chats = new Conversations(this, (message) => (this.notice = message));
  /** The models the engine holds, checked while the tab shows. */
  private readonly resident = new ResidentModels(this, () => this.api);
  /** Typed turns and their streamed answers. */
  private readonly answers = new AnswerGenerator(this.generatorHost());
  private stickToBottom = true;
  /** The conversation shown at the last render (a switch scrolls to its end). */
  private shownId = '';

  constructor() {
    super();
    this.api = createApiClient();
    this.models = [];
    this.media = {};
    this.active = false;
    this.model = '';
    this.streamingId = '';
    this.voice = undefined;
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

  static override styles = [controlStyles, chatViewStyles];

  private get current(): Conversation | undefined {
    return this.chats.current;
  }

  private get busy(): boolean {
    return this.streamingId !== '' || this.voice !== undefined;
  }

  /** What the answer generator reads and tells of this view. */
  private generatorHost(): AnswerGeneratorHost {
    return {
      chats: this.chats,
      api: () => this.api,
      model: () => this.model,
      busy: () => this.busy,
      streaming: (turnId) => (this.streamingId = turnId),
      notice: (message) => (this.notice = message),
      followNewTurn: () => (this.stickToBottom = true),
      answered: () => void this.resident.refresh(),
    };
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
      void this.chats.open(this.conversations).then((opened) => opened && this.focusComposer());
    }
    if (changed.has('active')) this.resident.active = this.active;
  }

  override updated() {
    const shown = this.chats.currentId;
    const switched = shown !== this.shownId;
    this.shownId = shown;
    const log = this.renderRoot.querySelector('.log');
    if (log && (this.stickToBottom || switched)) log.scrollTop = log.scrollHeight;
  }

  private newConversation() {
    this.chatsOpen = false;
    this.chats.create();
    this.focusComposer();
  }

  private async deleteConversation(id: string) {
    if (this.streamingId && this.current?.id === id) this.answers.stop();
    if (await this.chats.remove(id)) this.focusComposer();
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

  /**
   * Starts a spoken conversation with the model (or ends the one in progress): each turn the
   * engine detects is added with its audio and, once written down, its transcript; each answer
   * streams in as typed answers do.
   */
  private toggleTalk() {
    if (this.voice !== undefined) {
      this.voice.stop();
      return;
    }
    const conversation = this.current;
    if (!conversation || !this.model || this.busy) return;
    this.stickToBottom = true;
    this.voice = startTalk(this.chats, conversation, this.model, {
      streaming: (turnId) => (this.streamingId = turnId),
      notice: (message) => (this.notice = message),
      closed: () => {
        this.voice = undefined;
        this.streamingId = '';
      },
    });
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
        Answers are generated in this tab, on ${this.resident.has(this.model) ? 'the' : 'a'} model
        loaded from your browser's storage. Nothing leaves this device.
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
            .audio=${t.audio ?? []}
            .model=${t.model ?? ''}
            .reasoning=${t.reasoning ?? ''}
            .toolCalls=${t.toolCalls ?? []}
            ?json=${t.json === true}
            .stats=${t.stats}
            .error=${t.error ?? ''}
            ?streaming=${t.id === this.streamingId}
            ?can-regenerate=${i === lastIndex && t.role === 'assistant' && !this.busy}
          ></lmtab-chat-message>`,
      )}
    </div>`;
  }

  private renderChats() {
    return html`
      <aside class="chats ${this.chatsOpen ? 'open' : ''}" aria-label="Chats">
        <lmtab-conversation-list
          .conversations=${this.chats.list}
          current=${this.chats.currentId}
          @conversation-new=${() => this.newConversation()}
          @conversation-select=${(e: CustomEvent<{ id: string }>) => {
            this.chats.select(e.detail.id);
            this.chatsOpen = false;
            this.stickToBottom = true;
          }}
          @conversation-rename=${(e: CustomEvent<{ id: string; title: string }>) =>
            this.chats.patch(e.detail.id, (c) => ({ ...c, title: e.detail.title, renamed: true }))}
          @conversation-delete=${(e: CustomEvent<{ id: string }>) =>
            this.deleteConversation(e.detail.id)}
        ></lmtab-conversation-list>
      </aside>
    `;
  }

  private renderTop() {
    return html`
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
          .media=${this.media}
          value=${this.model}
          ?resident=${this.resident.has(this.model)}
          .load=${this.resident.load}
          ?disabled=${this.busy}
          @model-change=${(e: CustomEvent<{ model: string }>) => {
            this.model = e.detail.model;
            void this.resident.loadModel(e.detail.model);
          }}
          @model-load=${(e: CustomEvent<{ model: string }>) => this.resident.loadModel(e.detail.model)}
          @model-eject=${(e: CustomEvent<{ model: string }>) =>
            void this.resident.ejectModel(e.detail.model).then((problem) => {
              if (problem) this.notice = problem;
            })}
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
    `;
  }

  private renderCompose(
    settings: ChatSettings,
    record: ModelRecord | undefined,
    pending: ReturnType<typeof pendingCalls>,
  ) {
    return html`
      <div class="compose">
        ${
          pending.length > 0 && !this.busy
            ? html`<lmtab-tool-results
                .calls=${pending}
                ?disabled=${!this.model}
                @tool-results=${(e: CustomEvent<{ results: string[] }>) =>
                  this.current && this.answers.sendToolResults(this.current, e.detail.results)}
              ></lmtab-tool-results>`
            : nothing
        }
        <lmtab-chat-composer
          ?disabled=${!this.model}
          blocked-reason=${settingsProblem(settings)}
          ?busy=${this.busy}
          model=${this.model}
          ?images-allowed=${record?.projector !== undefined}
          ?audio-allowed=${record?.projector !== undefined}
          placeholder=${this.model ? `Send a message to ${this.model}` : 'Add a model first'}
          @send=${(e: CustomEvent<{ text: string; images: string[]; audio: string[] }>) =>
            this.current &&
            this.answers.send(this.current, e.detail.text, e.detail.images, e.detail.audio)}
          ?talking=${this.voice !== undefined}
          @talk=${() => this.toggleTalk()}
          @stop=${() => {
            this.answers.stop();
            this.voice?.stop();
          }}
        ></lmtab-chat-composer>
      </div>
    `;
  }

  private renderSettings(settings: ChatSettings, conversation: Conversation | undefined) {
    return html`
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
          @settings-change=${(e: CustomEvent<{ settings: ChatSettings; final: boolean }>) => {
            // Typing in a JSON editor shows at once but is saved when the field is left.
            if (conversation) {
              const { settings: next, final } = e.detail;
              this.chats.patch(conversation.id, (c) => ({ ...c, settings: next }), final);
            }
          }}
        ></lmtab-chat-settings>
      </aside>
    `;
  }

  override render() {
    const conversation = this.current;
    const record = this.models.find((m) => m.id === this.model);
    // Conversations saved before a setting existed take its default.
    const settings: ChatSettings = { ...defaultChatSettings, ...conversation?.settings };
    const overlay = this.chatsOpen || this.settingsOpen;
    const pending = pendingCalls(conversation);
    return html`
      ${this.renderChats()}
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
        ${this.renderTop()}
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
          @regenerate=${() => this.current && this.answers.regenerate(this.current)}
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
        ${this.renderCompose(settings, record, pending)}
        ${this.dragging ? html`<div class="drop">Drop images or audio to attach</div>` : nothing}
      </section>
      <div
        class="scrim ${overlay ? 'show' : ''}"
        aria-hidden="true"
        @click=${() => {
          this.chatsOpen = false;
          this.settingsOpen = false;
        }}
      ></div>
      ${this.renderSettings(settings, conversation)}
    `;
  }
}

customElements.define('lmtab-chat-view', LmtabChatView);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-chat-view': LmtabChatView;
  }
}
