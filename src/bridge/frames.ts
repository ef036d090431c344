/**
 * The frame protocol shared by the service worker, the engine host and the relay: one HTTP request
 * travels as a `request` frame, its answer as `head`, any number of `data`, then `end` or `error`.
 * A client that goes away sends `abort`. Over a MessagePort each request has its own port; over a
 * WebSocket the `id` tells requests apart.
 */

/** An HTTP request in transit to the engine host. */
export interface RequestFrame {
  type: 'request';
  id: string;
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  url: string;
  headers: [string, string][];
  /**
   * The body as a stream, transferred with the frame (Chromium transfers a ReadableStream over a
   * MessagePort): the engine reads it as it arrives, and its reads pace the sender.
   */
  body: ReadableStream<Uint8Array> | null;
}

/** Status line and headers of the answer. */
export interface HeadFrame {
  type: 'head';
  id: string;
  status: number;
  headers: [string, string][];
}

/** One piece of the answer's body. */
export interface DataFrame {
  type: 'data';
  id: string;
  chunk: Uint8Array;
}

/** The answer is complete. */
export interface EndFrame {
  type: 'end';
  id: string;
}

/** The answer failed after (or before) its head was sent. */
export interface ErrorFrame {
  type: 'error';
  id: string;
  /** Stable error code (`no_engine`, `engine_failure`, ...). */
  code: string;
  message: string;
}

/** The client went away: stop working on the request. */
export interface AbortFrame {
  type: 'abort';
  id: string;
}

/** Frames that flow from the engine host back to the client side. */
export type ResponseFrame = HeadFrame | DataFrame | EndFrame | ErrorFrame;

/** Frames that flow from the client side to the engine host. */
export type ClientFrame = RequestFrame | AbortFrame;

/** Message a host tab sends the service worker to hand it a port to the engine. */
export interface HostAnnouncement {
  type: 'lmtab:host';
}

/** Message the service worker broadcasts to tabs when it has no port to the engine. */
export interface HostWanted {
  type: 'lmtab:need-host';
}

/**
 * A page asks the service worker for a port of its own to the engine (`ports[0]` is where the
 * answer goes), for exchanges a fetch cannot carry: a Realtime session streams its request body
 * while its answer streams back. The worker hands the port to the host tab, which answers on it
 * with {@link EnginePortGranted} or {@link EnginePortRefused}.
 */
export interface EnginePortWanted {
  type: 'lmtab:engine-port';
}

/** A fresh port to the engine (`ports[0]`), answering request frames as the worker's does. */
export interface EnginePortGranted {
  type: 'lmtab:engine-port-granted';
}

/** No engine to connect to, and why. */
export interface EnginePortRefused {
  type: 'lmtab:engine-port-refused';
  message: string;
}

/** Paths the engine answers: the route table's prefixes (`/v1`, `/api`). */
export { isApiPath } from '../api/wire.js';
