import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { asLmtabError } from '../../api/wire.js';
import { LmtabError, errorTable, toLmtabError } from '../../errors/index.js';
import type { EnginePool } from './engine-pool.js';
import type { EngineSocket } from './engine-socket.js';
import type { RelayLogEntry } from './forward-request.js';
import { createNdjsonDecoder } from '../../streams/index.js';
import { sendBody } from './send-body.js';

/** The path of OpenAI's Realtime WebSocket. */
export const realtimePath = '/v1/realtime';

/**
 * The subprotocol prefix OpenAI's browser SDK carries its key in (a page cannot set
 * `Authorization` on a WebSocket).
 */
const keyProtocolPrefix = 'openai-insecure-api-key.';

/** The subprotocols a client offered, trimmed. */
export function offeredProtocols(headers: IncomingHttpHeaders): string[] {
  return (headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * The headers a Realtime client's key is read from: its own, or, from a browser, a Bearer made of
 * the key it offered as a subprotocol.
 */
export function realtimeKeyHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  if (headers.authorization !== undefined || headers['x-api-key'] !== undefined) return headers;
  const key = offeredProtocols(headers)
    .find((p) => p.startsWith(keyProtocolPrefix))
    ?.slice(keyProtocolPrefix.length);
  return key === undefined ? headers : { ...headers, authorization: `Bearer ${key}` };
}

/** The subprotocol the relay answers: `realtime` when offered (never the one holding a key). */
export function chooseRealtimeProtocol(protocols: Set<string>): string | false {
  return protocols.has('realtime') ? 'realtime' : false;
}

/** Options of {@link serveRealtime}. */
export interface ServeRealtimeOptions {
  pool: EnginePool<EngineSocket>;
  /** A fresh request id (unique on the relay). */
  id: string;
  /** Path and query the client opened, e.g. `/v1/realtime?model=lfm2`. */
  url: string;
  clock?: () => number;
  onLog?: (entry: RelayLogEntry) => void;
}

/**
 * Carries one client's Realtime WebSocket to an engine tab as a `POST /v1/realtime` exchange:
 * each client message is one line of the request body (paced by the tab's credit: the client's
 * socket is paused while the tab is behind), each line of the answer one server message. A refusal
 * or failure becomes an `error` event and closes the socket; the client closing aborts the session
 * at the tab.
 */
export async function serveRealtime(ws: WebSocket, options: ServeRealtimeOptions): Promise<void> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const { id } = options;
  const model = new URL(options.url, 'http://relay').searchParams.get('model') ?? undefined;
  let status: number | undefined;
  let over = false;
  const log = () =>
    options.onLog?.({
      time: started,
      method: 'GET',
      path: realtimePath,
      ...(model === undefined ? {} : { model }),
      status,
      durationMs: clock() - started,
    });
  const client = new AbortController();
  const sendError = (error: LmtabError) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(
      JSON.stringify({
        type: 'error',
        event_id: `event_relay_${id}`,
        error: {
          type: errorTable[error.code].openAiType,
          code: error.code,
          message: error.message,
          param: error.param ?? null,
          event_id: null,
        },
      }),
    );
  };
  // Messages that come before the tab is found wait here (bounded by the socket's pause).
  const body = new PassThrough({ highWaterMark: 1024 * 1024 });
  const newline = Buffer.from('\n');
  let paused = false;
  const onMessage = (data: RawData, isBinary: boolean) => {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    if (isBinary || bytes.includes(0x0a)) {
      // One event per line: a binary message or a newline inside one would break the framing.
      sendError(
        new LmtabError(
          'invalid_request',
          `Expected each client event as one JSON text message, received ${isBinary ? 'a binary message' : 'a message with a line break in it'}.`,
        ),
      );
      return;
    }
    if (!body.write(Buffer.concat([bytes, newline])) && !paused) {
      // The tab is behind: stop reading the client until its credit lets the body drain.
      paused = true;
      ws.pause();
      body.once('drain', () => {
        paused = false;
        ws.resume();
      });
    }
  };
  ws.on('message', onMessage);
  ws.on('close', () => {
    body.end();
    client.abort();
  });

  let lease;
  try {
    lease = await options.pool.acquire({ signal: client.signal });
  } catch (error) {
    const lmtab = toLmtabError(error);
    status = lmtab.status;
    sendError(lmtab);
    ws.close(1011, 'no engine');
    return log();
  }
  const { engine: socket } = lease;
  let contentType = '';
  const text = new TextDecoder();
  // Each answer line, one server message.
  const lines = createNdjsonDecoder((line) => {
    if (ws.readyState === ws.OPEN) ws.send(line);
  });
  const finish = () => {
    if (over) return;
    over = true;
    sender.stop();
    socket.forget(id);
    lease.release();
    log();
  };
  client.signal.addEventListener('abort', () => {
    if (over) return;
    socket.abort(id);
    // The tab confirms with its end or error; a tab that does not is freed after a moment.
    setTimeout(finish, 5000).unref();
  });
  let refusal = '';
  socket.start(
    {
      type: 'request',
      id,
      method: 'POST',
      url: options.url,
      headers: [['content-type', 'application/x-ndjson']],
      hasBody: true,
    },
    {
      head(frame) {
        status = frame.status;
        contentType = new Headers(frame.headers).get('content-type') ?? '';
      },
      data(chunk) {
        if (status !== 200 || !contentType.includes('ndjson')) {
          // A refusal before the session opened: its JSON error body becomes one error event.
          refusal += text.decode(chunk, { stream: true });
          return;
        }
        lines.push(chunk);
      },
      end() {
        if (status !== 200) sendError(refusalError(refusal, status));
        finish();
        if (ws.readyState === ws.OPEN) ws.close(status === 200 ? 1000 : 1008);
      },
      error(code, message) {
        sendError(asLmtabError(code, message));
        finish();
        if (ws.readyState === ws.OPEN) ws.close(1011, 'engine failure');
      },
      credit: (bytes) => sender.credit(bytes),
    },
  );
  const sender = sendBody(body, {
    window: socket.bodyWindow,
    send: (chunk) => socket.sendBody(id, chunk),
    end: () => socket.endBody(id),
  });
}

/** The error a tab's refusal (an OpenAI error body) stands for. */
function refusalError(body: string, status: number | undefined): LmtabError {
  try {
    const parsed = JSON.parse(body) as {
      error?: { message?: string; code?: string; param?: string | null };
    };
    const error = asLmtabError(
      parsed.error?.code ?? 'engine_failure',
      parsed.error?.message ?? `The engine refused the session (status ${status ?? 'none'}).`,
    );
    return parsed.error?.param == null
      ? error
      : new LmtabError(error.code, error.message, { param: parsed.error.param });
  } catch {
    return new LmtabError(
      'engine_failure',
      `The engine refused the session with status ${status ?? 'none'} and a body that is not JSON.`,
    );
  }
}
