import { createStore, del, set, values, type UseStore } from 'idb-keyval';
import type { Conversation } from './conversation.js';

/** Where the Chat tab keeps its conversations. */
export interface ConversationStore {
  /** Every conversation, most recently changed first. */
  list(): Promise<Conversation[]>;
  /** Adds or replaces a conversation. */
  save(conversation: Conversation): Promise<void>;
  /** Deletes a conversation; nothing happens when there is none. */
  delete(id: string): Promise<void>;
}

/** Options of {@link createConversationStore}. */
export interface ConversationStoreOptions {
  /** IndexedDB database name; default `lmtab-chats`. */
  name?: string;
}

/** Conversations in IndexedDB (their own database, apart from the models). */
export function createConversationStore(options: ConversationStoreOptions = {}): ConversationStore {
  const store: UseStore = createStore(options.name ?? 'lmtab-chats', 'conversations');
  return {
    async list() {
      const all = await values<Conversation>(store);
      return all.sort((a, b) => b.updatedAt - a.updatedAt);
    },
    save: (conversation) => set(conversation.id, conversation, store),
    delete: (id) => del(id, store),
  };
}
