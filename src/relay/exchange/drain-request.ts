import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultDrainBytes, defaultDrainTimeoutMs } from '../relay-defaults.js';

/** Options of {@link drainRequest}. */
export interface DrainOptions {
  /** Most bytes read and thrown away before giving up on the client; default {@link defaultDrainBytes}. */
  maxBytes?: number;
  /** Most milliseconds spent reading them; default {@link defaultDrainTimeoutMs}. */
  timeoutMs?: number;
}

/**
 * Reads the rest of a request body and throws it away, until it ends or a limit is reached. A
 * server that answers before the body is in (a 413, a refusal) and then closes the connection
 * makes the client's kernel answer its next bytes with a reset: the client sees `EPIPE` or
 * `ECONNRESET` and never reads the answer. Reading on for a bounded while lets it finish sending
 * and read the status, as nginx's lingering close does.
 */
export function drainRequest(request: IncomingMessage, options: DrainOptions = {}): Promise<void> {
  if (request.readableEnded || request.destroyed) return Promise.resolve();
  const maxBytes = options.maxBytes ?? defaultDrainBytes;
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', done);
      request.off('close', done);
      request.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.byteLength;
      if (read > maxBytes) done();
    };
    const timer = setTimeout(done, options.timeoutMs ?? defaultDrainTimeoutMs);
    request.on('data', onData);
    request.once('end', done);
    request.once('close', done);
    request.once('error', done);
    request.resume();
  });
}

/**
 * Ends an answer whose request body may still be arriving: the connection is marked to close (the
 * rest of the body is not a next request), `tail` is written, the body is drained within bounds,
 * and only then is the answer ended, so the client reads all of it.
 */
export async function endAfterBody(
  request: IncomingMessage,
  response: ServerResponse,
  tail?: Uint8Array,
): Promise<void> {
  if (request.complete) return void response.end(tail);
  if (!response.headersSent) response.shouldKeepAlive = false;
  if (tail !== undefined) response.write(tail);
  await drainRequest(request);
  response.end();
}
