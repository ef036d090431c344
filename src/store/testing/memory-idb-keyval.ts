/**
 * idb-keyval's functions over Maps, so that the IndexedDB model store itself runs in Node tests:
 * `createIdbModelStore({ keyval: memoryKeyval })` with `import * as memoryKeyval`. Values are structured clones
 * in and out, and listed in key order, as IndexedDB keeps them.
 */
type Key = IDBValidKey;

/** One object store: a name and its entries. */
export interface MemoryUseStore {
  name: string;
  entries: Map<Key, unknown>;
}

const databases = new Map<string, MemoryUseStore>();

/** The object store `storeName` of database `dbName`, shared by every call with the same names. */
export function createStore(dbName: string, storeName: string): MemoryUseStore {
  const name = `${dbName}/${storeName}`;
  let store = databases.get(name);
  if (store === undefined) {
    store = { name, entries: new Map() };
    databases.set(name, store);
  }
  return store;
}

/** The keys stored in `dbName`'s `storeName`, in key order (for assertions). */
export function storedKeys(dbName: string, storeName: string): Key[] {
  return sortedKeys(createStore(dbName, storeName));
}

/** A copy of every entry of the databases whose names start with `prefix`, for {@link restoreDatabases}. */
export function saveDatabases(prefix: string): Map<string, Map<Key, unknown>> {
  const saved = new Map<string, Map<Key, unknown>>();
  for (const [name, store] of databases) {
    if (name.startsWith(prefix)) saved.set(name, new Map(store.entries));
  }
  return saved;
}

/** Puts back what {@link saveDatabases} copied (entries are clones: the copies are never changed). */
export function restoreDatabases(saved: Map<string, Map<Key, unknown>>): void {
  for (const [name, entries] of saved) {
    const store = databases.get(name);
    if (store !== undefined) store.entries = new Map(entries);
  }
}

function sortedKeys(store: MemoryUseStore): Key[] {
  return [...store.entries.keys()].sort((a, b) => (String(a) < String(b) ? -1 : 1));
}

export function get<T>(key: Key, store: MemoryUseStore): Promise<T | undefined> {
  return Promise.resolve(structuredClone(store.entries.get(key)) as T | undefined);
}

export function getMany<T>(keys: Key[], store: MemoryUseStore): Promise<(T | undefined)[]> {
  return Promise.all(keys.map((key) => get<T>(key, store)));
}

export function set(key: Key, value: unknown, store: MemoryUseStore): Promise<void> {
  store.entries.set(key, structuredClone(value));
  return Promise.resolve();
}

export function del(key: Key, store: MemoryUseStore): Promise<void> {
  store.entries.delete(key);
  return Promise.resolve();
}

export function delMany(keys: Key[], store: MemoryUseStore): Promise<void> {
  for (const key of keys) store.entries.delete(key);
  return Promise.resolve();
}

export function keys<K extends Key = Key>(store: MemoryUseStore): Promise<K[]> {
  return Promise.resolve(sortedKeys(store) as K[]);
}

export function values<T>(store: MemoryUseStore): Promise<T[]> {
  return Promise.resolve(
    sortedKeys(store).map((key) => structuredClone(store.entries.get(key)) as T),
  );
}
