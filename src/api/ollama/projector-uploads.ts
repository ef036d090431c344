/**
 * Vision projectors uploaded to `/api/blobs`, held until `/api/create` pairs them with a model:
 * the store keeps a projector only as part of a model. The oldest are dropped beyond `limit`.
 */
export interface ProjectorUploads {
  get(hex: string): Blob | undefined;
  put(hex: string, blob: Blob): void;
  delete(hex: string): void;
}

/** Creates an empty {@link ProjectorUploads} holding at most `limit` files (default 4). */
export function createProjectorUploads(limit = 4): ProjectorUploads {
  const held = new Map<string, Blob>();
  return {
    get: (hex) => held.get(hex),
    put(hex, blob) {
      held.delete(hex);
      held.set(hex, blob);
      for (const oldest of held.keys()) {
        if (held.size <= limit) break;
        held.delete(oldest);
      }
    },
    delete: (hex) => void held.delete(hex),
  };
}
