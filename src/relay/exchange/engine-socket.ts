import type { WebSocket } from 'ws';
import type { HeadFrame } from '../../bridge/wire.js';
import {
  decodeBodyPiece,
  encodeBodyPiece,
  parseTabFrame,
  type HelloFrame,
  type RelayToTabFrame,
  type SocketRequestFrame,
} from '../../bridge/wire.js';

/** Receives the answer to one request forwarded to a tab. */
export interface Exchange {
  head(frame: HeadFrame): void;
  data(chunk: Uint8Array): void;
  end(): void;
  /** A failure reported by the tab, or the tab gone (`no_engine`). */
  error(code: string, message: string): void;
  /** The tab read `bytes` more of the request's body. */
  credit?(bytes: number): void;
}

/** Options of {@link attachEngineSocket}. */
export interface EngineSocketOptions {
  /** The tab introduced itself: it may now receive requests. */
  onHello(hello: HelloFrame): void;
  /** The tab's engine now serves `capacity` requests at once (after its hello). */
  onSlots?(capacity: number): void;
  /** The tab's page answered the relay's ping `id`. */
  onPong?(id: string): void;
  /** The socket closed; every open exchange has already been told. */
  onClose(): void;
}

/** One engine tab's WebSocket, carrying many requests at once, told apart by id. */
export interface EngineSocket {
  /**
   * Request-body bytes the tab takes per request beyond those it credited back (its hello's
   * `bodyWindow`); Infinity for a tab that does not grant credit.
   */
  readonly bodyWindow: number;
  /** Whether the tab fetches large request bodies from the relay (its hello's `pullsBodies`). */
  readonly pullsBodies: boolean;
  /** Sends a request frame; `exchange` hears the answer. */
  start(frame: SocketRequestFrame, exchange: Exchange): void;
  /** Sends one piece of a request's body. */
  sendBody(id: string, chunk: Uint8Array): void;
  /** Tells the tab that a request's body is complete. */
  endBody(id: string): void;
  /** Asks the tab to stop working on a request; its exchange still hears the final end or error. */
  abort(id: string): void;
  /** Stops delivering frames of a request (it is over on the relay's side). */
  forget(id: string): void;
  /** Asks the tab's page whether it runs (a tab whose hello says `heartbeat`). */
  ping(id: string): void;
  /** Tells the tab that the relay serves requests with it again after `asideMs` set aside. */
  rejoined(asideMs: number, silentMs: number): void;
  /** Closes the socket (the relay is stopping, or the tab stopped answering pings). */
  close(code?: number, reason?: string): void;
}

/**
 * Wraps a tab's WebSocket in the frame protocol. What the tab sends is data only: frames are
 * shape-checked, unknown ids ignored, and a malformed frame closes the socket.
 */
export function attachEngineSocket(socket: WebSocket, options: EngineSocketOptions): EngineSocket {
  const exchanges = new Map<string, Exchange>();
  let greeted = false;
  let bodyWindow = Number.POSITIVE_INFINITY;
  let pullsBodies = false;

  const send = (frame: RelayToTabFrame) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  };

  socket.on('message', (data, isBinary) => {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : data instanceof ArrayBuffer
        ? new Uint8Array(data)
        : data;
    if (isBinary) {
      const piece = decodeBodyPiece(bytes);
      if (piece === undefined) return socket.close(1008, 'malformed binary frame');
      exchanges.get(piece.id)?.data(piece.chunk);
      return;
    }
    const frame = parseTabFrame(bytes.toString());
    if (frame === undefined) return socket.close(1008, 'malformed frame');
    if (frame.type === 'hello') {
      if (!greeted) {
        bodyWindow = frame.bodyWindow ?? bodyWindow;
        pullsBodies = frame.pullsBodies === true;
        options.onHello(frame);
      }
      greeted = true;
      return;
    }
    if (frame.type === 'slots') {
      if (greeted) options.onSlots?.(frame.capacity);
      return;
    }
    if (frame.type === 'pong') {
      if (greeted) options.onPong?.(frame.id);
      return;
    }
    const exchange = exchanges.get(frame.id);
    if (exchange === undefined) return;
    if (frame.type === 'credit') exchange.credit?.(frame.bytes);
    else if (frame.type === 'head') exchange.head(frame);
    else if (frame.type === 'end') exchange.end();
    else exchange.error(frame.code, frame.message);
  });

  // Set when the relay closes the socket (it is stopping): the answers cut short say so.
  let closing: string | undefined;
  socket.on('close', () => {
    const open = [...exchanges.values()];
    exchanges.clear();
    for (const exchange of open) {
      exchange.error(
        'no_engine',
        closing === undefined
          ? 'The engine tab disconnected from the relay before the answer was complete.'
          : `The relay stopped (${closing}) before the answer was complete: retry once it is back.`,
      );
    }
    options.onClose();
  });

  return {
    get bodyWindow() {
      return bodyWindow;
    },
    get pullsBodies() {
      return pullsBodies;
    },
    start(frame, exchange) {
      exchanges.set(frame.id, exchange);
      send(frame);
    },
    sendBody(id, chunk) {
      if (socket.readyState === socket.OPEN) socket.send(encodeBodyPiece(id, chunk));
    },
    endBody: (id) => send({ type: 'end', id }),
    ping: (id) => send({ type: 'ping', id }),
    rejoined: (asideMs, silentMs) =>
      send({ type: 'rejoined', asideMs: Math.round(asideMs), silentMs: Math.round(silentMs) }),
    abort: (id) => send({ type: 'abort', id }),
    forget: (id) => void exchanges.delete(id),
    close: (code, reason) => {
      closing = reason ?? 'closing';
      socket.close(code, reason);
    },
  };
}
