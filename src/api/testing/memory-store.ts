import type { ModelRecord, ModelStore } from '../../store/index.js';

/** A ModelStore double over records in memory; only what the API reads is implemented. */
export interface MemoryStore extends ModelStore {
  /** Ids passed to `delete`, in order. */
  deleted: string[];
}

/** Creates an in-memory ModelStore double holding `records`. */
export function createMemoryStore(records: ModelRecord[]): MemoryStore {
  const byId = new Map(records.map((r) => [r.id, r]));
  const unsupported = (name: string) => () => {
    throw new Error(`MemoryStore.${name} is not implemented`);
  };
  const deleted: string[] = [];
  return {
    deleted,
    list: () => Promise.resolve([...byId.values()].sort((a, b) => b.createdAt - a.createdAt)),
    get: (id) => Promise.resolve(byId.get(id)),
    delete: (id) => {
      deleted.push(id);
      return Promise.resolve(byId.delete(id));
    },
    importFiles: unsupported('importFiles'),
    attachProjector: unsupported('attachProjector'),
    createCustom: unsupported('createCustom'),
    copy: unsupported('copy'),
    open: unsupported('open'),
    touch: () => Promise.resolve(),
  };
}
