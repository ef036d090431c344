import { createStore, del, get, set, type UseStore } from 'idb-keyval';

/** One stored answer of a stateful protocol (OpenAI's Responses API), kept for later turns. */
export interface StoredResponse {
  /** The answer's id, e.g. `resp_...`. */
  id: string;
  /** Epoch milliseconds when it was stored. */
  createdAt: number;
  /** The answer as it was served, in its protocol's wire shape (answered again by `GET`). */
  answer: unknown;
  /**
   * The conversation up to and including this answer, as the protocol needs it to continue (its
   * own shape: the store does not read it).
   */
  conversation: unknown;
}

/** Where stored answers live; ids are unique per answer. */
export interface ResponseStore {
  get(id: string): Promise<StoredResponse | undefined>;
  /** Adds or replaces an answer. */
  put(record: StoredResponse): Promise<void>;
  /** Deletes an answer; false when there was none. */
  delete(id: string): Promise<boolean>;
}

/** Options of {@link createIdbResponseStore}. */
export interface IdbResponseStoreOptions {
  /** IndexedDB database name; default `lmtab-responses`. */
  name?: string;
}

/** Stored answers in IndexedDB (their own database), so they survive a reload of the tab. */
export function createIdbResponseStore(options: IdbResponseStoreOptions = {}): ResponseStore {
  const store: UseStore = createStore(options.name ?? 'lmtab-responses', 'responses');
  return {
    get: (id) => get<StoredResponse>(id, store),
    put: (record) => set(record.id, record, store),
    async delete(id) {
      if ((await get<StoredResponse>(id, store)) === undefined) return false;
      await del(id, store);
      return true;
    },
  };
}

/** Stored answers in memory, for one router's lifetime (tests, and routers with no IndexedDB). */
export function createMemoryResponseStore(): ResponseStore {
  const records = new Map<string, StoredResponse>();
  return {
    get: (id) => Promise.resolve(structuredClone(records.get(id))),
    put: (record) => {
      records.set(record.id, structuredClone(record));
      return Promise.resolve();
    },
    delete: (id) => Promise.resolve(records.delete(id)),
  };
}
