import type { AbortFrame, RequestFrame, ResponseFrame } from './frames.js';

/** Milliseconds between checks that the engine behind a port is alive. */
export const defaultWatchdogMs = 1000;

/** Options of {@link fetchOverPort}. */
export interface FetchOverPortOptions {
  /** Aborts the request at the engine host too. */
  signal?: AbortSignal;
  /**
   * Called every `watchdogMs` while waiting: resolve false when the host is gone, and the answer
   * ends with an error instead of hanging.
   */
  isHostAlive?: () => Promise<boolean>;
  /** Milliseconds between liveness checks; default {@link defaultWatchdogMs}. */
  watchdogMs?: number;
  /** Builds the answer for a failure before any head arrived (no engine, host gone). */
  failure: (code: string, message: string) => Response;
  /** Builds the last body bytes for a failure after the head arrived (an SSE or NDJSON error event). */
  streamFailure: (code: string, message: string, contentType: string) => Uint8Array | undefined;
}

/** Statuses whose Response may not carry a body. */
const nullBodyStatus = new Set([101, 204, 205, 304]);

/**
 * Sends one request frame over `port` (to the engine host) and builds a streaming `Response` from the
 * frames that come back on a fresh channel.
 */
export function fetchOverPort(
  port: MessagePort,
  frame: RequestFrame,
  options: FetchOverPortOptions,
): Promise<Response> {
  const channel = new MessageChannel();
  const reply = channel.port1;
  return new Promise<Response>((resolve) => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let contentType = '';
    let state: 'waiting' | 'streaming' | 'closed' = 'waiting';
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      cancel: () => abort(),
    });

    const finish = () => {
      state = 'closed';
      clearInterval(watchdog);
      options.signal?.removeEventListener('abort', abort);
      reply.close();
    };
    const abort = () => {
      if (state === 'closed') return;
      reply.postMessage({ type: 'abort', id: frame.id } satisfies AbortFrame);
      fail('aborted', 'The request was aborted by the client.');
    };
    const fail = (code: string, message: string) => {
      if (state === 'waiting') resolve(options.failure(code, message));
      else if (state === 'streaming') {
        const tail = options.streamFailure(code, message, contentType);
        if (tail) controller.enqueue(tail);
        controller.close();
      }
      finish();
    };

    reply.onmessage = (event: MessageEvent<ResponseFrame>) => {
      const message = event.data;
      if (state === 'closed') return;
      switch (message.type) {
        case 'head': {
          state = 'streaming';
          contentType = new Headers(message.headers).get('content-type') ?? '';
          const hasBody = !nullBodyStatus.has(message.status) && frame.method !== 'HEAD';
          resolve(
            new Response(hasBody ? body : null, {
              status: message.status,
              headers: message.headers,
            }),
          );
          break;
        }
        case 'data':
          controller.enqueue(message.chunk);
          break;
        case 'end':
          controller.close();
          finish();
          break;
        case 'error':
          fail(message.code, message.message);
          break;
      }
    };

    const watchdog = setInterval(async () => {
      if (state !== 'closed' && options.isHostAlive && !(await options.isHostAlive())) {
        fail('no_engine', 'The tab running the engine closed before the answer was complete.');
      }
    }, options.watchdogMs ?? defaultWatchdogMs);
    if (options.signal?.aborted) return abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    port.postMessage(frame, [channel.port2, ...(frame.body ? [frame.body] : [])]);
  });
}
