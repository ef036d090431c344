import { fetchOverPort } from '../bridge/index.js';
import { createNdjsonDecoder } from '../streams/index.js';
import type { RequestFrame } from '../bridge/wire.js';
import { connectEngine, type EngineConnection } from './connect-engine.js';

/** The path of OpenAI's Realtime WebSocket, which this socket answers in the page. */
export const realtimePath = '/v1/realtime';

/** A Realtime `error` event, as the socket delivers failures that are not the engine's events. */
function errorEvent(code: string, message: string): string {
  return JSON.stringify({
    type: 'error',
    event_id: `event_page_${Date.now().toString(36)}`,
    error: { type: 'server_error', code, message, param: null, event_id: null },
  });
}

/**
 * A WebSocket to `/v1/realtime` answered by the lmtab engine of this origin, with no network: the
 * page gets its own port to the engine (through the service worker), and the session runs as one
 * `POST /v1/realtime` exchange whose body carries the messages sent (one per line) while its
 * answer carries the server's. It behaves as a browser WebSocket does for OpenAI's Realtime
 * clients: `open`, `message` (text data), `error` and `close` events, `send` and `close`.
 * A refused session (an unknown model, say) opens, delivers one `error` event and closes (1008).
 */
export class LmtabRealtimeSocket extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;

  readonly url: string;
  readonly protocol: string;
  readonly extensions = '';
  binaryType: BinaryType = 'blob';
  bufferedAmount = 0;
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent<string>) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;

  readonly #abort = new AbortController();
  readonly #encoder = new TextEncoder();
  #body!: ReadableStreamDefaultController<Uint8Array>;

  /**
   * @param url a `/v1/realtime?model=NAME` URL of this origin (ws, wss, http or https)
   * @param protocols as a WebSocket takes them; `realtime` is answered when offered
   * @param connect how the engine is reached; the service worker's port by default
   */
  constructor(
    url: string | URL,
    protocols: string | string[] = [],
    connect: () => Promise<EngineConnection> = connectEngine,
  ) {
    super();
    this.url = new URL(url, location.href).href;
    const offered = typeof protocols === 'string' ? [protocols] : protocols;
    this.protocol = offered.includes('realtime') ? 'realtime' : '';
    void this.#open(connect);
  }

  send(data: string): void {
    if (this.readyState === this.CONNECTING) {
      throw new DOMException('Still in CONNECTING state.', 'InvalidStateError');
    }
    if (this.readyState !== this.OPEN) return;
    if (typeof data !== 'string' || data.includes('\n')) {
      this.#deliver(
        errorEvent(
          'invalid_request',
          'Expected each client event as one JSON text message (no line breaks), received another kind of message.',
        ),
      );
      return;
    }
    this.#body.enqueue(this.#encoder.encode(`${data}\n`));
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState >= this.CLOSING) return;
    this.readyState = this.CLOSING;
    // The session ends at the engine: its answer in progress is cancelled.
    this.#abort.abort();
    this.#finish(code, reason);
  }

  async #open(connect: () => Promise<EngineConnection>): Promise<void> {
    const target = new URL(this.url);
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.#body = controller),
    });
    let response: Response;
    try {
      const engine = await connect();
      const frame: RequestFrame = {
        type: 'request',
        id: crypto.randomUUID(),
        method: 'POST',
        url: `${realtimePath}${target.search}`,
        headers: [['content-type', 'application/x-ndjson']],
        body,
      };
      response = await fetchOverPort(engine.port, frame, {
        signal: this.#abort.signal,
        isHostAlive: () => engine.isHostAlive(),
        failure: (code, message) =>
          new Response(JSON.stringify({ error: { code, message } }), { status: 503 }),
        streamFailure: (code, message) => this.#encoder.encode(`${errorEvent(code, message)}\n`),
      });
    } catch (error) {
      this.#fail(error instanceof Error ? error.message : String(error));
      return;
    }
    if (this.readyState !== this.CONNECTING) return;
    this.readyState = this.OPEN;
    this.#dispatch(new Event('open'), this.onopen);
    if (response.status !== 200) {
      // A session refused before it began: its error body, as the event a WebSocket client reads.
      const refusal = (await response.json().catch(() => ({}))) as {
        error?: { code?: string; message?: string; param?: string | null; type?: string };
      };
      this.#deliver(
        JSON.stringify({
          type: 'error',
          event_id: `event_page_${Date.now().toString(36)}`,
          error: {
            type: refusal.error?.type ?? 'invalid_request_error',
            code: refusal.error?.code ?? 'invalid_request',
            message:
              refusal.error?.message ?? `The engine refused the session (${response.status}).`,
            param: refusal.error?.param ?? null,
            event_id: null,
          },
        }),
      );
      this.#abort.abort();
      this.#finish(1008, 'session refused');
      return;
    }
    await this.#read(response.body!);
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    const lines = createNdjsonDecoder((line) => this.#deliver(line));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        lines.push(value);
      }
      lines.end();
    } catch {
      // Cancelled by close(), or the engine went away: the close below says which.
    }
    this.#finish(this.#abort.signal.aborted ? 1000 : 1011, '');
  }

  #deliver(data: string): void {
    if (this.readyState !== this.OPEN) return;
    this.#dispatch(new MessageEvent('message', { data }), this.onmessage);
  }

  #fail(message: string): void {
    const event = Object.assign(new Event('error'), { message });
    this.#dispatch(event, this.onerror);
    this.#finish(1006, message);
  }

  #finish(code: number, reason: string): void {
    if (this.readyState === this.CLOSED) return;
    this.readyState = this.CLOSED;
    try {
      this.#body?.close();
    } catch {
      // Already closed or errored.
    }
    this.#dispatch(
      new CloseEvent('close', { code, reason, wasClean: code === 1000 }),
      this.onclose,
    );
  }

  #dispatch<E extends Event>(event: E, handler: ((event: E) => void) | null): void {
    this.dispatchEvent(event);
    handler?.call(this, event);
  }
}

/** Whether a WebSocket URL is this origin's `/v1/realtime`, which the page's engine answers. */
export function isLocalRealtimeUrl(url: string | URL): boolean {
  const target = new URL(url, location.href);
  return target.host === location.host && target.pathname === realtimePath;
}

/**
 * Makes `new WebSocket(url)` to this origin's `/v1/realtime` open a {@link LmtabRealtimeSocket}, so
 * that Realtime clients written for a server (OpenAI's SDK `OpenAIRealtimeWebSocket`, say) run
 * against the engine in the page; every other URL opens a real WebSocket. Pages served by a
 * relay may skip it (the relay answers the WebSocket), but it works there too. Returns false
 * when it was already installed.
 */
export function installRealtimeWebSocket(): boolean {
  const native = globalThis.WebSocket as typeof WebSocket & { lmtabRealtime?: true };
  if (native.lmtabRealtime) return false;
  const patched: typeof WebSocket = new Proxy(native, {
    construct(target, args: [string | URL, (string | string[])?], newTarget): object {
      const [url, protocols] = args;
      if (navigator.serviceWorker?.controller && isLocalRealtimeUrl(url)) {
        return new LmtabRealtimeSocket(url, protocols);
      }
      return Reflect.construct(target, args, newTarget === patched ? target : newTarget) as object;
    },
    get(target, key, receiver) {
      return key === 'lmtabRealtime' ? true : (Reflect.get(target, key, receiver) as unknown);
    },
  });
  globalThis.WebSocket = patched;
  return true;
}
