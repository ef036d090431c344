import type { Engine } from '../engine/index.js';
import type { ModelStore } from '../store/index.js';
import type { ProjectorUploads } from './ollama/projector-uploads.js';

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

/** One entry of the route table. */
export interface Route {
  /** A GET route also answers HEAD (without the body) unless a HEAD route of the same path exists. */
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  /** Exact path, or a prefix ending in `{id}` that captures the rest of the path (slashes too). */
  path: string;
  handler: RouteHandler;
}
