import { LmtabError } from '../errors/index.js';

/** Formats a byte count for people: `1.3 GB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/**
 * Checks that the origin's quota leaves room for `bytes` more, and asks for persistent storage so
 * the browser does not evict gigabytes of weights under pressure.
 */
export async function ensureSpace(bytes: number): Promise<void> {
  const storage = globalThis.navigator?.storage;
  if (!storage?.estimate) return;
  await storage.persist?.().catch(() => false);
  const { quota, usage } = await storage.estimate();
  if (quota === undefined || usage === undefined) return;
  const free = quota - usage;
  if (bytes > free) {
    throw new LmtabError(
      'quota_exceeded',
      `Not enough storage: the model needs ${formatBytes(bytes)} but only ${formatBytes(free)} of the browser's ${formatBytes(quota)} quota is free. Delete a model in My Models to make room.`,
    );
  }
}
