/** Bytes a streamed request body is read in at most. */
export const defaultReadBytes = 1024 * 1024;

/** Options of {@link createInboundBody}. */
export interface InboundBodyOptions {
  /**
   * Bytes the sender may have outstanding: sent but not yet granted back. It is the most this side
   * ever holds of one body, however fast the sender is.
   */
  window: number;
  /** Grants the sender `bytes` more, once they have been read out of the stream. */
  grant(bytes: number): void;
  /**
   * Queued pieces are joined into reads of up to this many bytes: each read crosses to the engine
   * worker as one message, so fewer, larger reads cost less. Default {@link defaultReadBytes}.
   */
  readBytes?: number;
}

/** A request body arriving in pieces (from the relay's WebSocket), as a stream with backpressure. */
export interface InboundBody {
  /** The body; transfer it to the engine worker, whose reads set the pace. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Adds a piece; false when it oversteps the window (the sender broke the protocol). */
  push(chunk: Uint8Array): boolean;
  /** The sender sent every piece. */
  end(): void;
  /** The body will not complete (the client went away): the stream's reader sees `reason`. */
  fail(reason: unknown): void;
}

/**
 * A body fed by pieces from a sender that waits for grants: a piece is granted back once the
 * stream's reader has taken it, so the sender never has more than `window` bytes outstanding and a
 * slow reader (the store writing to disk) slows the sender down instead of filling memory. Grants
 * are batched (a quarter of the window), and flushed whenever the reader has emptied the queue.
 */
export function createInboundBody(options: InboundBodyOptions): InboundBody {
  const { window } = options;
  const readBytes = options.readBytes ?? defaultReadBytes;
  const batch = Math.max(1, Math.floor(window / 4));
  const queue: Uint8Array[] = [];
  let queued = 0;
  let owed = 0;
  let ended = false;
  let failure: { reason: unknown } | undefined;
  let cancelled = false;
  let wake: (() => void) | undefined;

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (queue.length === 0 && !ended && failure === undefined) {
          await new Promise<void>((resolve) => (wake = resolve));
        }
        if (failure !== undefined) return controller.error(failure.reason);
        const next = take();
        if (next === undefined) return controller.close();
        queued -= next.byteLength;
        owed += next.byteLength;
        if (owed >= batch || (queue.length === 0 && !ended)) {
          options.grant(owed);
          owed = 0;
        }
        controller.enqueue(next);
      },
      cancel() {
        cancelled = true;
        queue.length = 0;
        queued = 0;
      },
    },
    // Nothing is pulled ahead of the reader: the queue above is the only buffer.
    { highWaterMark: 0 },
  );

  /** The next read: the first queued piece, joined with those after it up to `readBytes`. */
  const take = (): Uint8Array | undefined => {
    let count = 0;
    let bytes = 0;
    while (count < queue.length && bytes + queue[count]!.byteLength <= readBytes) {
      bytes += queue[count]!.byteLength;
      count += 1;
    }
    if (count <= 1) return queue.shift();
    const joined = new Uint8Array(bytes);
    let offset = 0;
    for (const piece of queue.splice(0, count)) {
      joined.set(piece, offset);
      offset += piece.byteLength;
    }
    return joined;
  };

  const poke = () => {
    wake?.();
    wake = undefined;
  };

  return {
    stream,
    push(chunk) {
      if (cancelled || ended || failure !== undefined) return true;
      if (queued + owed + chunk.byteLength > window) return false;
      queue.push(chunk);
      queued += chunk.byteLength;
      poke();
      return true;
    },
    end() {
      ended = true;
      poke();
    },
    fail(reason) {
      if (ended && queue.length === 0) return;
      failure ??= { reason };
      queue.length = 0;
      poke();
    },
  };
}

/** Options of {@link createFetchedBody}. */
export interface FetchedBodyOptions {
  /** Where the relay holds the body (its `bodyUrl`, made absolute). */
  url: URL;
  /** The engine secret, shown as `Authorization: Bearer SECRET`. */
  secret: string;
  /** Told about each piece as the engine reads it. */
  onPiece?(chunk: Uint8Array): void;
  /** Told once the whole body was read. */
  onEnd?(): void;
  /** Reads are joined up to this many bytes; default {@link defaultReadBytes}. */
  readBytes?: number;
  /** The fetch to use; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A request body the tab fetches from the relay when the engine first reads it: TCP paces the
 * client, the tab holds no more than one read, and no WebSocket frame carries it. Pieces arriving
 * on the socket for it break the protocol (`push` says false); `fail` (the client or the relay went
 * away) ends the fetch.
 */
export function createFetchedBody(options: FetchedBodyOptions): InboundBody {
  const readBytes = options.readBytes ?? defaultReadBytes;
  const request = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let failure: { reason: unknown } | undefined;

  const open = async (): Promise<ReadableStreamDefaultReader<Uint8Array>> => {
    const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const response = await fetcher(options.url, {
      headers: { Authorization: `Bearer ${options.secret}` },
      cache: 'no-store',
      signal: request.signal,
    });
    if (!response.ok || response.body === null) {
      const detail = (await response.text().catch(() => '')).trim();
      throw new Error(`The relay did not give the request body (${response.status}): ${detail}`);
    }
    return response.body.getReader();
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (failure !== undefined) return controller.error(failure.reason);
        reader ??= await open();
        const parts: Uint8Array[] = [];
        let bytes = 0;
        let done = false;
        while (bytes < readBytes) {
          const next = await reader.read();
          if (next.done) {
            done = true;
            break;
          }
          parts.push(next.value);
          bytes += next.value.byteLength;
          options.onPiece?.(next.value);
        }
        if (bytes > 0) controller.enqueue(parts.length === 1 ? parts[0]! : joined(parts, bytes));
        if (!done) return;
        controller.close();
        options.onEnd?.();
      },
      cancel(reason) {
        request.abort(reason);
      },
    },
    { highWaterMark: 0 },
  );

  return {
    stream,
    push: () => false,
    end: () => undefined,
    fail(reason) {
      failure ??= { reason };
      request.abort(reason);
    },
  };
}

function joined(parts: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
