import type { ReactiveControllerHost } from 'lit';
import { failureText } from '../client/failure-text.js';
import type { ChatTurn, Conversation } from './conversation.js';
import type { ConversationStore } from './conversation-store.js';
import { defaultChatSettings } from './settings/chat-settings.js';

const newTitle = 'New chat';

/**
 * The Chat tab's conversations and which one shows, kept in a {@link ConversationStore} (or in
 * memory without one): the view reads `list` and `current` and changes them only through here,
 * which saves what it changes and says what failed through `onProblem`.
 */
export class Conversations {
  /** Every conversation, the newest first. */
  list: Conversation[] = [];
  /** The id of the one that shows. */
  currentId = '';
  private store: ConversationStore | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly onProblem: (message: string) => void,
  ) {}

  get current(): Conversation | undefined {
    return this.list.find((c) => c.id === this.currentId);
  }

  /**
   * Reads the conversations of `store`, keeping one started before they arrived, and shows the
   * newest; resolves true when there were none and a new one was opened.
   */
  async open(store: ConversationStore | undefined): Promise<boolean> {
    this.store = store;
    let saved: Conversation[] = [];
    try {
      saved = (await store?.list()) ?? [];
    } catch (error) {
      this.onProblem(`Saved chats could not be read: ${failureText(error)}`);
    }
    const unsaved = this.list.filter((c) => !saved.some((s) => s.id === c.id));
    this.set([...unsaved, ...saved]);
    return this.current ? false : this.showFirstOrNew();
  }

  select(id: string): void {
    this.currentId = id;
    this.host.requestUpdate();
  }

  /**
   * Opens a new conversation with the sampling settings of the one showing, unless that one is
   * still empty (it stays).
   */
  create(): void {
    const current = this.current;
    if (current && current.turns.length === 0) return;
    const now = Date.now();
    const conversation: Conversation = {
      id: crypto.randomUUID(),
      title: newTitle,
      renamed: false,
      createdAt: now,
      updatedAt: now,
      settings: { ...defaultChatSettings, ...current?.settings },
      turns: [],
    };
    this.currentId = conversation.id;
    this.set([conversation, ...this.list]);
    void this.save(conversation);
  }

  /** Deletes a conversation; resolves true when it was the last and a new one was opened. */
  async remove(id: string): Promise<boolean> {
    this.set(this.list.filter((c) => c.id !== id));
    try {
      await this.store?.delete(id);
    } catch (error) {
      this.onProblem(`The chat could not be deleted: ${failureText(error)}`);
    }
    return this.currentId === id ? this.showFirstOrNew() : false;
  }

  /** Replaces a conversation with `change(it)`, and saves it unless told not to. */
  patch(id: string, change: (c: Conversation) => Conversation, persist = true): void {
    let next: Conversation | undefined;
    this.set(this.list.map((c) => (c.id === id ? (next = change(c)) : c)));
    if (next && persist) void this.save(next);
  }

  /** Changes one turn's fields; saved only when told (a streaming answer is saved at its end). */
  patchTurn(id: string, turnId: string, change: Partial<ChatTurn>, persist = false): void {
    this.patch(
      id,
      (c) => ({ ...c, turns: c.turns.map((t) => (t.id === turnId ? { ...t, ...change } : t)) }),
      persist,
    );
  }

  /** Adds a turn at the end of a conversation, without saving it. */
  append(id: string, turn: ChatTurn): void {
    this.patch(id, (c) => ({ ...c, turns: [...c.turns, turn] }), false);
  }

  private showFirstOrNew(): boolean {
    if (this.list.length > 0) {
      this.select(this.list[0]!.id);
      return false;
    }
    this.create();
    return true;
  }

  private set(list: Conversation[]): void {
    this.list = list;
    this.host.requestUpdate();
  }

  private async save(conversation: Conversation): Promise<void> {
    try {
      await this.store?.save(conversation);
    } catch (error) {
      this.onProblem(`This chat could not be saved: ${failureText(error)}`);
    }
  }
}
