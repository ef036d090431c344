import type { Readable } from 'node:stream';

/** Largest body piece sent in one WebSocket message. */
const maxMessageBytes = 1024 * 1024;

/** Options of {@link sendBody}. */
export interface SendBodyOptions {
  /** Bytes the tab takes beyond those it granted back (its `bodyWindow`); Infinity: no waiting. */
  window: number;
  /** Sends one piece to the tab. */
  send(chunk: Uint8Array): void;
  /** Tells the tab the body is complete. */
  end(): void;
  /** Told about each piece as it arrives from the client, before it waits for room. */
  onPiece?(chunk: Buffer): void;
}

/** A request body on its way to a tab. */
export interface BodySender {
  /** The tab read `bytes` more: send that much more. */
  credit(bytes: number): void;
  /** Stops sending (the answer is over, or the body was refused); the client is no longer read. */
  stop(): void;
}

/**
 * Forwards a client's request body to a tab with flow control: no more than `window` bytes are
 * outstanding (sent, not yet credited back), pieces are cut to fit, and the client's socket is
 * paused while the tab has no room, so TCP backpressure reaches the client. Nothing larger than
 * the last piece read from the client waits here.
 */
export function sendBody(request: Readable, options: SendBodyOptions): BodySender {
  const { window } = options;
  const held: Uint8Array[] = [];
  let outstanding = 0;
  let received = false;
  let ended = false;
  let stopped = false;

  /** Up to `bytes` from the front of `held`, joining pieces so the tab gets fewer messages. */
  const takeHeld = (bytes: number): Uint8Array => {
    const first = held[0]!;
    if (first.byteLength >= bytes) {
      held[0] = first.subarray(bytes);
      if (held[0].byteLength === 0) held.shift();
      return first.subarray(0, bytes);
    }
    const parts: Uint8Array[] = [];
    let taken = 0;
    while (held.length > 0 && taken < bytes) {
      const next = held[0]!;
      const part = next.subarray(0, bytes - taken);
      parts.push(part);
      taken += part.byteLength;
      if (part.byteLength === next.byteLength) held.shift();
      else held[0] = next.subarray(part.byteLength);
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  };

  const pump = () => {
    while (!stopped && held.length > 0) {
      const room = window - outstanding;
      if (room <= 0) break;
      const piece = takeHeld(Math.min(room, maxMessageBytes));
      outstanding += piece.byteLength;
      options.send(piece);
    }
    if (stopped || ended) return;
    if (held.length > 0) request.pause();
    else if (received) {
      ended = true;
      options.end();
    } else request.resume();
  };

  request.on('data', (chunk: Buffer) => {
    if (stopped) return;
    options.onPiece?.(chunk);
    if (stopped) return;
    held.push(chunk);
    pump();
  });
  request.on('end', () => {
    if (stopped) return;
    received = true;
    pump();
  });

  return {
    credit(bytes) {
      outstanding = Math.max(0, outstanding - bytes);
      pump();
    },
    stop() {
      stopped = true;
      held.length = 0;
      request.pause();
    },
  };
}
