import { assertCanGenerate } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { describeBytes } from '../body/describe-bytes.js';
import { findModel } from '../pipeline/find-model.js';
import { formatNdjsonLine } from '../encoders/ndjson-encoder.js';
import { projectorModalities } from '../media/projector-modalities.js';
import type { RouteContext } from '../pipeline/route-context.js';
import { realtimeRate } from './realtime-audio.js';
import { RealtimeSession } from './realtime-session.js';
import { requestBody } from '../../streams/index.js';

/** Most input audio a session buffers before a commit: ten minutes. */
const maxBufferSeconds = 600;

/**
 * `POST /v1/realtime?model=NAME`: one OpenAI Realtime session, its client events as the request's
 * NDJSON body (one JSON event per line, read as they arrive) and its server events as the
 * answer's NDJSON lines. The relay's `/v1/realtime` WebSocket and the page's realtime client carry
 * a WebSocket's messages over it, each message one line; the session ends when the body does.
 */
export async function handleRealtime(context: RouteContext): Promise<Response> {
  const name = context.url.searchParams.get('model');
  if (name === null || name === '') {
    throw new LmtabError(
      'invalid_request',
      'Missing query parameter `model`: expected /v1/realtime?model=NAME, a stored model (one that hears takes audio).',
      { param: 'model' },
    );
  }
  const body = requestBody(context.request);
  if (body === null) {
    throw new LmtabError(
      'invalid_request',
      'Expected the client events as the request body (NDJSON, one event per line), received no body.',
    );
  }
  const record = await findModel(context.store, name);
  assertCanGenerate(record);
  const modalities = await projectorModalities(context, record);
  const encoder = new TextEncoder();
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const session = new RealtimeSession({
    engine: context.engine,
    model: record.id,
    media: { hears: modalities.audio, speaks: modalities.speech },
    maxBufferBytes: maxBufferSeconds * realtimeRate * 2,
    emit: (event) => {
      if (open) output.enqueue(encoder.encode(formatNdjsonLine(event)));
    },
  });
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => void (output = controller),
    cancel: (reason) => {
      open = false;
      context.abort(reason);
      void session.close();
    },
  });
  session.start();
  void readEvents(body, session, context.maxBodyBytes, context.signal).then(async () => {
    await session.close({ finish: !context.signal.aborted });
    if (open) {
      open = false;
      output.close();
    }
  });
  return new Response(stream, {
    headers: { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' },
  });
}

/** Feeds each line of the body to the session until the body ends, fails or is too long a line. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  session: RealtimeSession,
  maxLineBytes: number,
  signal: AbortSignal,
): Promise<void> {
  const reader = body.getReader();
  const text = new TextDecoder();
  let pending = '';
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += text.decode(value, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        feed(session, pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
      if (pending.length > maxLineBytes) {
        session.refuse(
          new LmtabError(
            'body_too_large',
            `A client event is larger than the limit of ${describeBytes(maxLineBytes)} (lmtab serve --max-body sets it): send audio in smaller appends. The session ends.`,
          ),
        );
        return;
      }
    }
    feed(session, pending + text.decode());
  } catch {
    // The client went away or sent too much: the session ends.
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

function feed(session: RealtimeSession, line: string): void {
  const trimmed = line.trim();
  if (trimmed === '') return;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    const shown = trimmed.length > 80 ? `${trimmed.slice(0, 80)}…` : trimmed;
    return session.refuse(
      new LmtabError(
        'invalid_request',
        `Expected each client event as one JSON object, received ${JSON.stringify(shown)}.`,
      ),
    );
  }
  session.handle(value);
}
