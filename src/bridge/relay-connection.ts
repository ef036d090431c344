import { createFetchedBody, createInboundBody, type InboundBody } from './body-stream.js';
import { tokenReaderFor } from '../api/wire.js';
import {
  createAudioSecondsCounter,
  createTokenCounter,
  type AudioSecondsCounter,
  type TokenCounter,
} from './count-tokens.js';
import type { AbortFrame, RequestFrame, ResponseFrame } from './frames.js';
import { ModelNameSniffer } from './read-model-name.js';
import { serveFrame } from './serve-frames.js';
import {
  decodeBodyPiece,
  encodeBodyPiece,
  engineProtocol,
  engineSecretProtocolPrefix,
  parseRelayFrame,
  type CreditFrame,
  type HelloFrame,
  type SlotsFrame,
  type SocketRequestFrame,
  type TabToRelayFrame,
} from './socket-frames.js';

/**
 * Slots a tab announces before its engine holds a model: llama.cpp's `n_parallel` default, which
 * the wllama engine opens; a loaded model's own count replaces it.
 */
export const defaultEngineSlots = 4;

/** The first reconnect delay, and the request body bytes a tab lets the relay send ahead. */
export const relayConnectionDefaults = { retryMs: 1000, bodyWindow: 8 * 1024 * 1024 } as const;

/** One request this tab served for the relay, for the Developer tab's log. */
export interface RelayRequestLog {
  /** Epoch milliseconds when the request reached the tab. */
  time: number;
  method: string;
  path: string;
  /** The `model` its JSON body named. */
  model?: string;
  /** The status answered; absent when it failed before a head or was aborted. */
  status?: number;
  /** Tokens generated, as the answer reported them (or its text events). */
  tokens?: number;
  /** Seconds of audio spoken, for an answer that is audio (`/v1/audio/speech`). */
  audioSeconds?: number;
  durationMs?: number;
  /** Error code when it failed (`aborted` when the client went away). */
  error?: string;
}

/** The connection's state: retrying after `disconnected`, for good after `closed`. */
export type RelayState = 'connecting' | 'connected' | 'disconnected' | 'closed';

/** What {@link connectRelay} reports. */
export type RelayEvent =
  | { type: 'state'; state: RelayState; detail?: string }
  | { type: 'request'; entry: RelayRequestLog };

/** Options of {@link connectRelay}. */
export interface ConnectRelayOptions {
  /** The relay's engine endpoint, e.g. `ws://127.0.0.1:1234/lmtab/engine`. */
  url: string;
  /**
   * A port to the engine worker (the engine host's `connect()`), or undefined when this tab does
   * not hold the engine: requests then go through the service worker by `fetch`. Called until it
   * gives a port; the port is kept for the life of the socket.
   */
  connect: () => MessagePort | undefined;
  /**
   * The relay's engine secret, asked before each connection attempt (it may change when the relay
   * restarts); without it the relay refuses the tab.
   */
  secret: () => Promise<string | undefined>;
  /** Told about state changes and each request served; default: nothing. */
  onEvent?: (event: RelayEvent) => void;
  /**
   * The engine's parallel slots now (those of the model it holds), or undefined while it cannot
   * tell (no model loaded); asked once the tab has joined (with {@link defaultEngineSlots}) and
   * after each request it served, and announced to the relay when they change. Default: always
   * undefined.
   */
  slots?: () => Promise<number | undefined>;
  /** lmtab's version, reported to the relay. */
  version?: string;
  /** Milliseconds before reconnecting after losing the relay, doubling up to 30 s; default in {@link relayConnectionDefaults}. */
  retryMs?: number;
  /** Fetch used when there is no port; default `globalThis.fetch` (the service worker answers). */
  fetch?: typeof globalThis.fetch;
  /** Origin that makes request URLs absolute; default `location.origin`. */
  origin?: string;
  /**
   * Request-body bytes the relay may send ahead of the engine's reads, per request: the most of an
   * upload this tab holds at once. Default in {@link relayConnectionDefaults}.
   */
  bodyWindow?: number;
}

/** A tab's link to the relay. */
export interface RelayConnection {
  readonly state: RelayState;
  /** Disconnects for good, stopping the requests in progress. */
  close(): void;
}

/** Largest body piece sent in one WebSocket message. */
const maxPieceBytes = 1024 * 1024;

interface Served {
  frame: SocketRequestFrame;
  /** The request's body as it arrives, while it does. */
  body?: InboundBody;
  /** What the log's model name is read from, until the body ends. */
  sniffer?: ModelNameSniffer;
  /** Stops the request once it is running. */
  stop?: () => void;
  log: RelayRequestLog;
  tokens?: TokenCounter;
  audio?: AudioSecondsCounter;
}

/**
 * Connects this tab to a relay as an engine: request frames arrive over a WebSocket, go to the
 * engine worker over a MessagePort (or through the service worker), and the response frames go
 * back as they come. Reconnects when the relay restarts, until closed.
 */
export function connectRelay(options: ConnectRelayOptions): RelayConnection {
  const retryMs = options.retryMs ?? relayConnectionDefaults.retryMs;
  const fetchOverSw = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const origin = options.origin ?? location.origin;
  const emit = options.onEvent ?? (() => undefined);
  const bodyWindow = options.bodyWindow ?? relayConnectionDefaults.bodyWindow;
  let state: RelayState = 'connecting';
  let socket: WebSocket | undefined;
  let port: MessagePort | undefined;
  let delay = retryMs;
  /** The slots the relay was last told. */
  let announced = defaultEngineSlots;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const served = new Map<string, Served>();
  /** The secret this socket joined with: the tab shows it to fetch a request's body. */
  let joinedWith = '';

  const setState = (next: RelayState, detail?: string) => {
    state = next;
    emit({ type: 'state', state: next, ...(detail === undefined ? {} : { detail }) });
  };

  const stopAll = () => {
    for (const request of served.values()) {
      request.body?.fail(new DOMException('The relay went away.', 'AbortError'));
      request.stop?.();
    }
    served.clear();
  };

  /** The engine's slots, or undefined when it cannot tell (or the question fails). */
  const currentSlots = async (): Promise<number | undefined> => {
    try {
      const slots = await options.slots?.();
      return slots !== undefined && Number.isInteger(slots) && slots > 0 ? slots : undefined;
    } catch {
      return undefined;
    }
  };

  /** Tells the relay when the engine's slots changed (a model with other slots was loaded). */
  const announceSlots = async (to: WebSocket) => {
    const slots = await currentSlots();
    if (slots === undefined || slots === announced || to.readyState !== WebSocket.OPEN) return;
    announced = slots;
    to.send(JSON.stringify({ type: 'slots', capacity: slots } satisfies SlotsFrame));
  };

  /** Sends one response frame to the relay and notes it in the request's log entry. */
  const reply = (to: WebSocket, request: Served, frame: ResponseFrame) => {
    if (frame.type === 'data') {
      request.tokens?.push(frame.chunk);
      request.audio?.push(frame.chunk);
      // The relay takes messages up to 16 MiB: bigger pieces go in parts.
      for (let at = 0; at < frame.chunk.byteLength; at += maxPieceBytes) {
        const part = frame.chunk.subarray(at, at + maxPieceBytes);
        if (to.readyState === WebSocket.OPEN) to.send(encodeBodyPiece(frame.id, part));
      }
      return;
    }
    if (frame.type === 'head') {
      request.log.status = frame.status;
      const headers = new Headers(frame.headers);
      request.tokens = createTokenCounter(
        headers.get('content-type') ?? '',
        tokenReaderFor(request.frame.url),
      );
      request.audio = createAudioSecondsCounter(headers);
    }
    if (to.readyState === WebSocket.OPEN) to.send(JSON.stringify(frame satisfies TabToRelayFrame));
    if (frame.type === 'end' || frame.type === 'error') {
      if (served.get(frame.id) !== request) return;
      served.delete(frame.id);
      const { log } = request;
      log.durationMs = Date.now() - log.time;
      log.tokens = request.tokens?.result();
      if (request.audio !== undefined) log.audioSeconds = request.audio.result();
      if (frame.type === 'error') log.error = frame.code;
      emit({ type: 'request', entry: log });
      void announceSlots(to);
    }
  };

  /** Starts a request at once; its body, if any, streams to the engine as the pieces arrive. */
  const run = (to: WebSocket, request: Served) => {
    const { frame } = request;
    const { id, method, url, headers } = frame;
    if (frame.bodyUrl !== undefined) {
      request.body = createFetchedBody({
        // The relay's own origin: the one the socket went to (ws: becomes http:, wss: https:).
        url: new URL(frame.bodyUrl, options.url.replace(/^ws/, 'http')),
        secret: joinedWith,
        onPiece: (chunk) => sniff(request, chunk),
        onEnd: () => sniff(request, undefined),
      });
    } else if (frame.hasBody) {
      request.body = createInboundBody({
        window: bodyWindow,
        grant: (bytes) => {
          if (to.readyState !== WebSocket.OPEN || !served.has(id)) return;
          to.send(JSON.stringify({ type: 'credit', id, bytes } satisfies CreditFrame));
        },
      });
    }
    const body = request.body?.stream ?? null;
    const portFrame: RequestFrame = { type: 'request', id, method, url, headers, body };
    port ??= options.connect();
    if (port !== undefined) {
      const channel = new MessageChannel();
      channel.port1.onmessage = (event: MessageEvent<ResponseFrame>) => {
        reply(to, request, event.data);
        if (event.data.type === 'end' || event.data.type === 'error') channel.port1.close();
      };
      request.stop = () => channel.port1.postMessage({ type: 'abort', id } satisfies AbortFrame);
      port.postMessage(portFrame, [channel.port2, ...(body ? [body] : [])]);
      return;
    }
    const controller = new AbortController();
    request.stop = () => controller.abort();
    void serveFrame(
      portFrame,
      (httpRequest, { signal }) => fetchOverSw(httpRequest, { signal }),
      (response) => reply(to, request, response),
      { origin, signal: controller.signal },
    );
  };

  /** Notes a body piece for the log, and reads the model name once the body has ended. */
  const sniff = (request: Served, chunk: Uint8Array | undefined) => {
    const { sniffer } = request;
    if (sniffer === undefined) return;
    if (chunk !== undefined) return sniffer.push(chunk);
    request.log.model = sniffer.name();
    request.sniffer = undefined;
  };

  const onMessage = (to: WebSocket, data: unknown) => {
    if (data instanceof ArrayBuffer) {
      const piece = decodeBodyPiece(new Uint8Array(data));
      const request = piece && served.get(piece.id);
      if (!piece || !request?.body) return;
      sniff(request, piece.chunk);
      if (!request.body.push(piece.chunk)) {
        // The relay sent past the window it was given: a broken relay, not a slow engine.
        to.close(1008, 'request body sent past the granted window');
      }
      return;
    }
    const frame = typeof data === 'string' ? parseRelayFrame(data) : undefined;
    if (frame === undefined) return;
    if (frame.type === 'request') {
      const url = new URL(frame.url, origin);
      // A model named in the query (a Realtime session's) is known at once; a body's when it ends.
      const named = url.searchParams.get('model') ?? '';
      const request: Served = {
        frame,
        log: {
          time: Date.now(),
          method: frame.method,
          path: url.pathname,
          ...(named === '' ? {} : { model: named }),
        },
        ...(named === '' ? { sniffer: new ModelNameSniffer() } : {}),
      };
      served.set(frame.id, request);
      run(to, request);
    } else if (frame.type === 'end') {
      const request = served.get(frame.id);
      if (request === undefined) return;
      sniff(request, undefined);
      request.body?.end();
    } else {
      const request = served.get(frame.id);
      if (request === undefined) return;
      request.log.error = 'aborted';
      request.body?.fail(new DOMException('The request was aborted by the client.', 'AbortError'));
      request.stop?.();
    }
  };

  const retryLater = (detail: string) => {
    setState('disconnected', detail);
    retry = setTimeout(() => void open(), delay);
    delay = Math.min(delay * 2, 30_000);
  };

  const open = async () => {
    setState('connecting');
    let secret: string | undefined;
    try {
      secret = await options.secret();
    } catch (error) {
      secret = undefined;
      if (state === 'closed') return;
      return retryLater(
        `could not read the relay's engine secret: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (state === 'closed') return;
    if (secret === undefined) {
      return retryLater(
        'this page has no engine secret for the relay: open the pairing link `lmtab serve` prints',
      );
    }
    joinedWith = secret;
    const current = new WebSocket(options.url, [
      engineProtocol,
      `${engineSecretProtocolPrefix}${secret}`,
    ]);
    socket = current;
    current.binaryType = 'arraybuffer';
    current.onopen = () => {
      delay = retryMs;
      // The tab joins at once, with the default slots; the engine's own follow as a slots frame.
      // Waiting for them first made a page the service worker did not control yet ask the relay
      // itself (which has no engine until this tab joins): a join late by the relay's engine wait,
      // and with `--headless` a headless engine started for nothing.
      announced = defaultEngineSlots;
      const hello: HelloFrame = {
        type: 'hello',
        capacity: announced,
        bodyWindow,
        pullsBodies: true,
        ...(options.version === undefined ? {} : { version: options.version }),
      };
      current.send(JSON.stringify(hello));
      setState('connected');
      void announceSlots(current);
    };
    current.onmessage = (event: MessageEvent) => onMessage(current, event.data);
    current.onclose = (event) => {
      if (socket !== current) return;
      // The relay is gone: its clients are too, so the work for them stops.
      stopAll();
      port?.close();
      port = undefined;
      if (state === 'closed') return;
      // A refused upgrade (wrong secret, wrong Host) looks like an unreachable relay to a page.
      const detail =
        event.reason !== ''
          ? event.reason
          : `the relay at ${options.url} is unreachable or refused this tab's engine secret`;
      retryLater(detail);
    };
  };

  void open();
  return {
    get state() {
      return state;
    },
    close() {
      if (state === 'closed') return;
      clearTimeout(retry);
      setState('closed');
      stopAll();
      socket?.close(1000, 'stopped by the tab');
    },
  };
}
