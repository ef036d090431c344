import type { Engine } from '../../engine/index.js';
import type { HubClient } from '../../hub/index.js';
import type {
  DownloadEvent,
  DownloadRequest,
  ModelStore,
  ResponseStore,
} from '../../store/index.js';

/** What `/api/pull` needs: the hub as configured now, and downloads into the store. */
export interface HubAccess {
  /** A hub client with the endpoint and token in force now (settings may change at any time). */
  client(): HubClient;
  /** Downloads a model into the store, resuming an unfinished download of it. */
  download(
    request: DownloadRequest,
    options: { signal?: AbortSignal },
  ): AsyncIterable<DownloadEvent>;
}

/** What a route handler gets for one request. */
export interface RouteContext {
  request: Request;
  url: URL;
  /** Path parameters, e.g. `id` of `/v1/models/{id}` (URL-decoded, may contain `/` and `:`). */
  params: Readonly<Record<string, string>>;
  /** Aborted when the client goes away or the response body is cancelled; pass it to the engine. */
  signal: AbortSignal;
  /** Aborts `signal`; streamed responses call it when their body is cancelled. */
  abort(reason?: unknown): void;
  engine: Engine;
  store: ModelStore;
  /** Stored answers of `/v1/responses` (`store`, `previous_response_id`). */
  responses: ResponseStore;
  /** The hub, for `/api/pull`; undefined where pulling is not wired. */
  hub: HubAccess | undefined;
  /** Epoch milliseconds now. */
  clock: () => number;
  /** Fetches images given by http(s) URL. */
  fetch: typeof globalThis.fetch;
  /** Largest request body (and fetched image) accepted, in bytes. */
  maxBodyBytes: number;
  /** Largest model file accepted by `POST /api/blobs/...`, in bytes. */
  maxBlobBytes: number;
  /** Vision projectors uploaded to `/api/blobs`, waiting for `/api/create`. */
  projectorUploads: ProjectorUploads;
  /** lmtab's version, answered by `/api/version`. */
  version: string;
}

/** Answers one matched request; anything it throws becomes the protocol's error response. */
export type RouteHandler = (context: RouteContext) => Promise<Response>;

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
