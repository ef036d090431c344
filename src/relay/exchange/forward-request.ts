import {
  validateHeaderName,
  validateHeaderValue,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import {
  asLmtabError,
  describeBytes,
  errorResponse,
  streamErrorBytes,
  tokenReaderFor,
} from '../../api/wire.js';
import { createTokenCounter, ModelNameSniffer, type TokenCounter } from '../../bridge/wire.js';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import type { EnginePool } from './engine-pool.js';
import type { EngineSocket } from './engine-socket.js';
import { endAfterBody } from './drain-request.js';
import { defaultAbortGraceMs, defaultEngineTimeoutMs } from '../relay-defaults.js';
import { inlineBodyBytes, type PulledBodies } from './pulled-bodies.js';
import { sendBody } from './send-body.js';

/** One line of the relay's request log. */
export interface RelayLogEntry {
  /** Epoch milliseconds when the request arrived. */
  time: number;
  method: string;
  path: string;
  /** The `model` the JSON body named, when it named one. */
  model?: string;
  /** The status answered; absent when the client went away first. */
  status?: number;
  durationMs: number;
  /**
   * Milliseconds to the first byte of the answer's body (for a stream, its first event: about the
   * time to its first token); absent when no body came.
   */
  firstByteMs?: number;
  /** Tokens the answer generated, as its usage reported (else its text events); absent if unknown. */
  tokens?: number;
}

/** Options of {@link forwardRequest}. */
export interface ForwardOptions {
  pool: EnginePool<EngineSocket>;
  /** Where tabs that pull bodies fetch the large ones (absent: every body goes as frames). */
  bodies?: PulledBodies;
  /** Largest request body in bytes; larger ones are answered 413. */
  maxBodyBytes: number;
  /** The `lmtab serve` flag that sets `maxBodyBytes`, named in the 413; default `--max-body`. */
  limitFlag?: string;
  /** A fresh request id (unique on the relay). */
  id: string;
  /** Headers the relay adds to every answer (isolation, CORS). */
  headers: Record<string, string>;
  /**
   * Milliseconds the tab may send nothing (no head, no body piece) once the request body is sent;
   * then the request ends with `engine_timeout` and its slot is freed. Default
   * {@link defaultEngineTimeoutMs}.
   */
  engineTimeoutMs?: number;
  /** Milliseconds a tab gets to confirm an abort before its slot is freed anyway; default {@link defaultAbortGraceMs}. */
  abortGraceMs?: number;
  /** Epoch milliseconds now; default `Date.now`. */
  clock?: () => number;
  onLog?: (entry: RelayLogEntry) => void;
}

// Hop-by-hop headers belong to one connection; the relay's Node server sets its own.
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'content-length',
]);

/**
 * The client's credentials stay at the relay: a tab sees neither the relay's API key nor cookies
 * the client holds for this host.
 */
const credentials = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/**
 * Writes a web-standard Response (an error answered by the relay itself) to a Node response. With
 * `request`, whose body may not be read yet, the rest of that body is drained (bounded) before the
 * answer ends, so that the client gets to read it instead of a reset connection.
 */
export async function sendResponse(
  response: Response,
  out: ServerResponse,
  headers: Record<string, string> = {},
  request?: IncomingMessage,
): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  if (out.headersSent || out.destroyed) return;
  if (request !== undefined && !request.complete) out.shouldKeepAlive = false;
  out.writeHead(response.status, {
    ...Object.fromEntries(response.headers),
    ...headers,
    'Content-Length': String(body.byteLength),
  });
  if (request === undefined) return void out.end(body);
  await endAfterBody(request, out, body);
}

/** Bytes of a whole answer the relay holds back before it streams it anyway. */
const heldAnswerBytes = 8 * 1024 * 1024;

/**
 * Whether an answer is whole (JSON, read at once by its client) rather than a stream (events,
 * NDJSON, audio): a whole one's head waits for its body, as llama-server's does.
 */
function wholeAnswer(method: string, status: number, contentType: string): boolean {
  if (method === 'HEAD' || status === 204 || status === 304) return false;
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** Headers a tab's answer may carry: no hop-by-hop, cookies or CORS (the relay decides those). */
function allowedResponseHeader(name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (hopByHop.has(lower) || lower === 'set-cookie' || lower.startsWith('access-control-')) {
    return false;
  }
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Forwards one API request to the least busy engine tab as frames and streams the answer back.
 * The relay answers by itself only what happens around the tab: a full queue, no engine, a body
 * too large, a tab gone before or during the answer.
 */
export async function forwardRequest(
  request: IncomingMessage,
  response: ServerResponse,
  options: ForwardOptions,
): Promise<void> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const method = request.method ?? 'GET';
  const url = request.url ?? '/';
  const { pathname } = new URL(url, 'http://relay');
  const { id, maxBodyBytes } = options;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const sniffer = new ModelNameSniffer();

  let status: number | undefined;
  /** When the answer's first body byte came from the tab. */
  let firstByteAt: number | undefined;
  let tokens: TokenCounter | undefined;
  const log = () => {
    const generated = tokens?.result();
    options.onLog?.({
      time: started,
      method,
      path: pathname,
      model: sniffer.empty ? undefined : sniffer.name(),
      status,
      durationMs: clock() - started,
      ...(firstByteAt === undefined ? {} : { firstByteMs: firstByteAt - started }),
      ...(generated === undefined ? {} : { tokens: generated }),
    });
  };
  const answerError = async (error: LmtabError) => {
    if (response.headersSent || response.destroyed) return;
    status = error.status;
    await sendResponse(errorResponse(pathname, error), response, options.headers, request);
  };
  const tooLarge = (size: string) =>
    new LmtabError(
      'body_too_large',
      `Request body too large: the relay's limit is ${describeBytes(maxBodyBytes)}, ${size} ` +
        `(lmtab serve ${options.limitFlag ?? '--max-body'} sets the limit).`,
    );

  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) {
    await answerError(tooLarge(`the Content-Length header says ${describeBytes(declared)}`));
    return log();
  }

  const client = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) client.abort();
  });

  let lease;
  try {
    lease = await options.pool.acquire({ signal: client.signal });
  } catch (error) {
    await answerError(toLmtabError(error));
    return log();
  }
  const { engine: socket } = lease;
  // A large body, or one of unknown length, the tab fetches (when it can); a small one goes along.
  const pulled =
    hasBody &&
    options.bodies !== undefined &&
    socket.pullsBodies &&
    !(request.headers['content-length'] !== undefined && declared <= inlineBodyBytes);
  // `holding`: a whole (JSON) answer's head is kept back until its body is complete, so that an
  // answer cut short (the tab or the relay going away) is still a clean error, not a broken body.
  let state: 'waiting' | 'holding' | 'streaming' | 'over' = 'waiting';
  let contentType = '';
  let held:
    { status: number; headers: [string, string][]; body: Uint8Array[]; bytes: number } | undefined;
  let grace: ReturnType<typeof setTimeout> | undefined;
  let silence: ReturnType<typeof setTimeout> | undefined;
  const engineTimeoutMs = options.engineTimeoutMs ?? defaultEngineTimeoutMs;

  const finish = () => {
    if (state === 'over') return;
    state = 'over';
    body?.stop();
    clearTimeout(grace);
    clearTimeout(silence);
    socket.forget(id);
    lease.release();
    log();
  };

  let received = 0;
  const body = !hasBody
    ? undefined
    : bodyFor(request, socket, id, pulled ? options.bodies : undefined, {
        onPiece(chunk) {
          received += chunk.byteLength;
          if (received > maxBodyBytes) {
            socket.abort(id);
            void answerError(tooLarge(`received at least ${describeBytes(received)}`));
            finish();
            return;
          }
          sniffer.push(chunk);
          if (pulled) watch();
        },
        // The engine's silence counts from the body's end: a long upload is not silence.
        onEnd: () => watch(),
      });
  // The tab hears the request first; a body sent as frames follows as the client sends it.
  socket.start(
    {
      type: 'request',
      id,
      method,
      url,
      headers: Object.entries(request.headers).flatMap(([name, value]) =>
        hopByHop.has(name) || credentials.has(name) || value === undefined
          ? []
          : (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]),
      ),
      hasBody,
      ...(body?.path === undefined ? {} : { bodyUrl: body.path }),
    },
    {
      head(frame) {
        if (state !== 'waiting' || response.destroyed) return;
        watch();
        status = frame.status;
        const headers = frame.headers.filter(([name, value]) => allowedResponseHeader(name, value));
        contentType = headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
        tokens = createTokenCounter(contentType, tokenReaderFor(pathname));
        if (wholeAnswer(method, frame.status, contentType)) {
          state = 'holding';
          held = { status: frame.status, headers, body: [], bytes: 0 };
        } else {
          state = 'streaming';
          sendHead(frame.status, headers);
        }
      },
      data(chunk) {
        watch();
        firstByteAt ??= clock();
        tokens?.push(chunk);
        if (state === 'holding' && held !== undefined) {
          held.body.push(chunk);
          held.bytes += chunk.byteLength;
          // Past the bound it streams after all: the relay keeps no large answer in memory.
          if (held.bytes > heldAnswerBytes) release();
        } else if (state === 'streaming' && !response.destroyed) response.write(chunk);
      },
      end() {
        if (state === 'holding' && held !== undefined && !response.destroyed) {
          response.setHeader('Content-Length', String(held.bytes));
          release();
        }
        const streaming = state === 'streaming';
        if (state === 'waiting') {
          void answerError(
            new LmtabError('engine_failure', 'The engine tab ended the answer before its head.'),
          );
        }
        // Finished first: it stops feeding the body to the tab, so the rest can be drained.
        finish();
        if (streaming) void endAfterBody(request, response);
      },
      error(code, message) {
        const streaming = state === 'streaming' && !response.destroyed;
        if (state === 'waiting' || state === 'holding')
          void answerError(asLmtabError(code, message));
        finish();
        if (streaming) {
          // The head is out: a stream ends with its protocol's error event, anything else breaks.
          const tail = streamErrorBytes(code, message, contentType, pathname);
          if (tail) void endAfterBody(request, response, tail);
          else response.destroy();
        }
      },
      credit: (bytes) => body?.credit?.(bytes),
    },
  );

  /** Writes the tab's head with the relay's own headers. */
  function sendHead(code: number, headers: [string, string][]): void {
    for (const [name, value] of headers) response.appendHeader(name, value);
    for (const [name, value] of Object.entries(options.headers)) response.setHeader(name, value);
    // An answer before the whole body (a refusal): the rest is not read, so the connection
    // cannot carry another request.
    if (hasBody && !request.complete) response.shouldKeepAlive = false;
    response.writeHead(code);
    response.flushHeaders();
  }

  /** Sends a held answer's head and what of its body has come, and streams the rest. */
  function release(): void {
    if (held === undefined) return;
    const { status: code, headers, body: pieces } = held;
    held = undefined;
    state = 'streaming';
    if (response.destroyed) return;
    sendHead(code, headers);
    for (const piece of pieces) response.write(piece);
  }

  /** (Re)arms the silence timer: the engine said something, or the body is all sent. */
  function watch(): void {
    clearTimeout(silence);
    if (state === 'over') return;
    silence = setTimeout(() => {
      if (state === 'over') return;
      const seconds = Math.round(engineTimeoutMs / 100) / 10;
      const message =
        `The engine sent nothing for ${seconds} s ${state === 'streaming' ? 'in the middle of its answer' : 'before answering'}, ` +
        'so the relay ended the request and freed its slot (the limit is --engine-timeout).';
      socket.abort(id);
      if (state === 'waiting' || state === 'holding') {
        void answerError(new LmtabError('engine_timeout', message));
      } else if (!response.destroyed) {
        const tail = streamErrorBytes('engine_timeout', message, contentType);
        if (tail) response.end(tail);
        else response.destroy();
      }
      finish();
    }, engineTimeoutMs);
  }

  client.signal.addEventListener('abort', () => {
    if (state === 'over') return;
    socket.abort(id);
    grace = setTimeout(finish, options.abortGraceMs ?? defaultAbortGraceMs);
  });

  if (!hasBody) watch();
  // Pulled, the engine's silence counts from the start (the tab must come for the body) and is
  // reset by every piece it takes: a long upload is not silence.
  else if (pulled) watch();
}

/** How a request's body reaches its tab: as frames after the request, or fetched by the tab. */
function bodyFor(
  request: IncomingMessage,
  socket: EngineSocket,
  id: string,
  pulled: PulledBodies | undefined,
  handlers: { onPiece(chunk: Buffer): void; onEnd(): void },
): { path?: string; stop(): void; credit?(bytes: number): void } {
  if (pulled !== undefined) return pulled.offer(request, handlers);
  return sendBody(request, {
    window: socket.bodyWindow,
    send: (chunk) => socket.sendBody(id, chunk),
    end: () => {
      socket.endBody(id);
      handlers.onEnd();
    },
    onPiece: handlers.onPiece,
  });
}
