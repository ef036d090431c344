import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pulledBodyPath } from '../../bridge/wire.js';
import { presentedKey, sameSecret } from '../trust/client-auth.js';

/**
 * Request bodies of at most this many declared bytes travel on the tab's WebSocket with the
 * request; larger ones, and bodies of unknown length, the tab fetches over HTTP (a chat's JSON
 * needs no second round trip; an upload of gigabytes gets TCP's flow control).
 */
export const inlineBodyBytes = 1024 * 1024;

/** What {@link PulledBodies.offer} is told as the body flows to its tab. */
export interface PulledBodyHandlers {
  /** A piece read from the client, before it is written to the tab. */
  onPiece(chunk: Buffer): void;
  /** The whole body was written to the tab. */
  onEnd(): void;
}

/** A body waiting for its tab, or flowing to it. */
export interface PulledBody {
  /** The path the tab fetches it from (with the engine secret). */
  readonly path: string;
  /** Stops it: the answer is over, or the body was refused. The client is no longer read. */
  stop(): void;
}

/** Request bodies that engine tabs fetch from the relay instead of receiving them as frames. */
export interface PulledBodies {
  /** Holds `request`'s body until its tab fetches it, once. */
  offer(request: IncomingMessage, handlers: PulledBodyHandlers): PulledBody;
  /** Answers a tab's GET of a body path; true when the path was one. */
  serve(request: IncomingMessage, response: ServerResponse): boolean;
}

/**
 * Why bodies are fetched: a WebSocket frame that a DevTools client watches (Playwright, and so
 * `lmtab serve --headless`, drives every page with the Network domain on) is copied to it
 * base64-encoded, which held a 2 GiB upload to 17 MiB/s; a fetched body is not. The path holds an
 * unguessable token that works once and only while its request lasts, and the fetch must show the
 * engine secret (`Authorization: Bearer SECRET`), as joining as an engine does.
 */
export function createPulledBodies(engineSecret: string): PulledBodies {
  const waiting = new Map<string, { request: IncomingMessage; handlers: PulledBodyHandlers }>();
  const flowing = new Map<string, () => void>();

  const refuse = (response: ServerResponse, status: number, message: string) => {
    response.writeHead(status, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' });
    response.end(`${message}\n`);
  };

  /** Pipes the client's body into the tab's response, with backpressure both ways. */
  const pipe = (
    token: string,
    { request, handlers }: { request: IncomingMessage; handlers: PulledBodyHandlers },
    response: ServerResponse,
  ) => {
    const declared = request.headers['content-length'];
    response.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Cache-Control': 'no-store',
      ...(declared === undefined ? {} : { 'Content-Length': declared }),
    });
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      flowing.delete(token);
      request.off('data', onData);
      request.off('end', onEnd);
      response.off('drain', onDrain);
      if (!request.destroyed) request.pause();
      if (!response.writableEnded) response.destroy();
    };
    const onData = (chunk: Buffer) => {
      handlers.onPiece(chunk);
      if (stopped) return;
      if (!response.write(chunk)) request.pause();
    };
    const onDrain = () => {
      if (!stopped) request.resume();
    };
    const onEnd = () => {
      if (stopped) return;
      flowing.delete(token);
      request.off('data', onData);
      response.off('drain', onDrain);
      response.end();
      handlers.onEnd();
    };
    flowing.set(token, stop);
    request.on('data', onData);
    request.once('end', onEnd);
    response.on('drain', onDrain);
    // The tab went away mid-body: the client is no longer read (the answer ends it).
    response.once('close', () => {
      if (!response.writableFinished) stop();
    });
    // The client went away mid-body: the tab's fetch fails at once, not at the end of a grace.
    request.once('close', () => {
      if (!request.complete) stop();
    });
    request.resume();
  };

  return {
    offer(request, handlers) {
      const token = randomBytes(24).toString('base64url');
      request.pause();
      waiting.set(token, { request, handlers });
      return {
        path: `${pulledBodyPath}${token}`,
        stop() {
          waiting.delete(token);
          flowing.get(token)?.();
        },
      };
    },
    serve(request, response) {
      const { pathname } = new URL(request.url ?? '/', 'http://relay');
      if (!pathname.startsWith(pulledBodyPath)) return false;
      if (request.method !== 'GET') {
        refuse(response, 405, `A request body is fetched with GET, got ${request.method}.`);
        return true;
      }
      const presented = presentedKey(request.headers);
      if (presented === undefined || !sameSecret(presented, engineSecret)) {
        refuse(
          response,
          401,
          'Request bodies are fetched only by engine tabs, with the engine secret ' +
            '(Authorization: Bearer SECRET).',
        );
        return true;
      }
      const token = pathname.slice(pulledBodyPath.length);
      const body = waiting.get(token);
      if (body === undefined) {
        refuse(
          response,
          404,
          'No request body waits at this path: it was fetched, or its request is over.',
        );
        return true;
      }
      waiting.delete(token);
      pipe(token, body, response);
      return true;
    },
  };
}
