/**
 * The requests one engine tab serves for the relay (and its answers to the relay's pings): each
 * request frame starts at once on the
 * engine (over its worker's MessagePort, or through the service worker), its body streams in as
 * the relay sends it (or is fetched from the relay), and its response frames go back, in pieces of
 * at most 1 MiB; each finished request is logged with its model, status, tokens and time.
 */
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
  parseRelayFrame,
  type CreditFrame,
  type PongFrame,
  type RejoinedFrame,
  type SocketRequestFrame,
  type TabToRelayFrame,
} from './socket-frames.js';

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

/** What the requests need of the tab's link to the relay. */
export interface RelayRequestsHost {
  /** The relay's engine endpoint (its origin also serves pulled bodies). */
  url: string;
  /** Origin that makes request URLs absolute. */
  origin: string;
  /** Request-body bytes the relay may send ahead of the engine's reads, per request. */
  bodyWindow: number;
  /** A port to the engine worker, or undefined: requests then go through `fetch`. */
  connect: () => MessagePort | undefined;
  /** The fetch that reaches the service worker. */
  fetch: typeof globalThis.fetch;
  /** The secret the socket joined with: the tab shows it to fetch a request's body. */
  secret: () => string;
  /** Told when a request has ended, with its log entry. */
  onServed: (to: WebSocket, entry: RelayRequestLog) => void;
  /** Told when the relay serves requests with this tab again after setting it aside. */
  onRejoined: (frame: RejoinedFrame) => void;
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

/** The requests in progress on one tab's link to the relay. */
export class RelayRequests {
  private readonly served = new Map<string, Served>();
  private port: MessagePort | undefined;

  constructor(private readonly host: RelayRequestsHost) {}

  /** One message of the relay: a request, a piece or the end of its body, or its abort. */
  receive(to: WebSocket, data: unknown): void {
    if (data instanceof ArrayBuffer) {
      const piece = decodeBodyPiece(new Uint8Array(data));
      const request = piece && this.served.get(piece.id);
      if (!piece || !request?.body) return;
      this.sniff(request, piece.chunk);
      if (!request.body.push(piece.chunk)) {
        // The relay sent past the window it was given: a broken relay, not a slow engine.
        to.close(1008, 'request body sent past the granted window');
      }
      return;
    }
    const frame = typeof data === 'string' ? parseRelayFrame(data) : undefined;
    if (frame === undefined) return;
    if (frame.type === 'ping') {
      // Answered from the page's own thread: a page that is frozen answers nothing.
      if (to.readyState === WebSocket.OPEN) {
        to.send(JSON.stringify({ type: 'pong', id: frame.id } satisfies PongFrame));
      }
    } else if (frame.type === 'rejoined') {
      this.host.onRejoined(frame);
    } else if (frame.type === 'request') {
      const url = new URL(frame.url, this.host.origin);
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
      this.served.set(frame.id, request);
      this.run(to, request);
    } else if (frame.type === 'end') {
      const request = this.served.get(frame.id);
      if (request === undefined) return;
      this.sniff(request, undefined);
      request.body?.end();
    } else {
      const request = this.served.get(frame.id);
      if (request === undefined) return;
      request.log.error = 'aborted';
      request.body?.fail(new DOMException('The request was aborted by the client.', 'AbortError'));
      request.stop?.();
    }
  }

  /** Stops every request in progress (the relay went away, or the tab closed the link). */
  stopAll(): void {
    for (const request of this.served.values()) {
      request.body?.fail(new DOMException('The relay went away.', 'AbortError'));
      request.stop?.();
    }
    this.served.clear();
  }

  /** Closes the port to the engine worker: the next socket asks for a new one. */
  closePort(): void {
    this.port?.close();
    this.port = undefined;
  }

  /** Sends one response frame to the relay and notes it in the request's log entry. */
  private reply(to: WebSocket, request: Served, frame: ResponseFrame): void {
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
      if (this.served.get(frame.id) !== request) return;
      this.served.delete(frame.id);
      const { log } = request;
      log.durationMs = Date.now() - log.time;
      log.tokens = request.tokens?.result();
      if (request.audio !== undefined) log.audioSeconds = request.audio.result();
      if (frame.type === 'error') log.error = frame.code;
      this.host.onServed(to, log);
    }
  }

  /** Starts a request at once; its body, if any, streams to the engine as the pieces arrive. */
  private run(to: WebSocket, request: Served): void {
    const { frame } = request;
    const { id, method, url, headers } = frame;
    if (frame.bodyUrl !== undefined) {
      request.body = createFetchedBody({
        // The relay's own origin: the one the socket went to (ws: becomes http:, wss: https:).
        url: new URL(frame.bodyUrl, this.host.url.replace(/^ws/, 'http')),
        secret: this.host.secret(),
        onPiece: (chunk) => this.sniff(request, chunk),
        onEnd: () => this.sniff(request, undefined),
      });
    } else if (frame.hasBody) {
      request.body = createInboundBody({
        window: this.host.bodyWindow,
        grant: (bytes) => {
          if (to.readyState !== WebSocket.OPEN || !this.served.has(id)) return;
          to.send(JSON.stringify({ type: 'credit', id, bytes } satisfies CreditFrame));
        },
      });
    }
    const body = request.body?.stream ?? null;
    const portFrame: RequestFrame = { type: 'request', id, method, url, headers, body };
    this.port ??= this.host.connect();
    const { port } = this;
    if (port !== undefined) {
      const channel = new MessageChannel();
      channel.port1.onmessage = (event: MessageEvent<ResponseFrame>) => {
        this.reply(to, request, event.data);
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
      (httpRequest, { signal }) => this.host.fetch(httpRequest, { signal }),
      (response) => this.reply(to, request, response),
      { origin: this.host.origin, signal: controller.signal },
    );
  }

  /** Notes a body piece for the log, and reads the model name once the body has ended. */
  private sniff(request: Served, chunk: Uint8Array | undefined): void {
    const { sniffer } = request;
    if (sniffer === undefined) return;
    if (chunk !== undefined) {
      sniffer.push(chunk);
      return;
    }
    request.log.model = sniffer.name();
    request.sniffer = undefined;
  }
}
