import type { ProjectorUploads } from '../../pipeline/route-context.js';
import { unusedUploadKeepMs } from '../../body/default-limits.js';

/** Options of {@link createProjectorUploads}. */
export interface ProjectorUploadsOptions {
  /** Most projectors held at once; default 4. */
  limit?: number;
  /** Milliseconds a projector is held after its upload; default {@link unusedUploadKeepMs}. */
  keepMs?: number;
  /** Epoch milliseconds now; default `Date.now`. */
  clock?: () => number;
}

/** Creates an empty {@link ProjectorUploads}. */
export function createProjectorUploads({
  limit = 4,
  keepMs = unusedUploadKeepMs,
  clock = Date.now,
}: ProjectorUploadsOptions = {}): ProjectorUploads {
  const held = new Map<string, { blob: Blob; at: number }>();
  const expired = (at: number) => clock() - at >= keepMs;
  return {
    get(hex) {
      const entry = held.get(hex);
      if (entry === undefined || !expired(entry.at)) return entry?.blob;
      held.delete(hex);
      return undefined;
    },
    put(hex, blob) {
      held.delete(hex);
      held.set(hex, { blob, at: clock() });
      for (const oldest of held.keys()) {
        if (held.size <= limit) break;
        held.delete(oldest);
      }
    },
    delete: (hex) => void held.delete(hex),
    prune() {
      for (const [hex, { at }] of held) if (expired(at)) held.delete(hex);
    },
  };
}
