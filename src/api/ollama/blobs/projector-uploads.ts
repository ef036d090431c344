import { unusedUploadKeepMs } from '../../routing/default-limits.js';

/**
 * Vision projectors uploaded to `/api/blobs`, held until an `/api/create` naming one pairs it with
 * a model: the store keeps a projector only as part of a model. Each is held for `keepMs` after
 * its upload and dropped after that, or sooner when more than `limit` are held (the oldest first).
 */
export interface ProjectorUploads {
  /** The projector with this sha256, if held and not yet expired. */
  get(hex: string): Blob | undefined;
  put(hex: string, blob: Blob): void;
  delete(hex: string): void;
  /** Drops every projector held longer than its time. */
  prune(): void;
}

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
