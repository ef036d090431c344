import { LmtabError } from '../../errors/index.js';
import type { Engine, GenerateEvent, GenerateRequest } from '../../engine/index.js';

/**
 * Starts a generation and waits for its first event, so that failures before any output (model
 * load, busy engine) still become an HTTP status; returns every event, the first one included.
 *
 * The engine holds the model (and counts the request as active) until its iterator ends. The
 * returned events end it when they are read to `done`, when they are closed with `return()` (even
 * before the first read), and when `signal` aborts: a client that goes away frees the engine
 * whether or not the encoder between them closes what it reads.
 */
export async function startGeneration(
  engine: Engine,
  request: GenerateRequest,
  signal: AbortSignal,
): Promise<AsyncIterable<GenerateEvent>> {
  return startEvents(engine.generate(request, { signal }), signal, (e) => e.type === 'done');
}

/**
 * {@link startGeneration} for any of the engine's event streams (transcripts, speech): waits for
 * the first event, and ends the engine's iterator at the event `isLast` marks, on `return()`, or
 * when `signal` aborts.
 */
export async function startEvents<E>(
  events: AsyncIterable<E>,
  signal: AbortSignal,
  isLast: (event: E) => boolean,
): Promise<AsyncIterable<E>> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  return new StartedEvents(first, iterator, signal, isLast);
}

/** The events of a started stream; see {@link startEvents}. */
class StartedEvents<E> implements AsyncIterableIterator<E, undefined> {
  #pending: IteratorResult<E> | undefined;
  #finished = false;
  #answered = false;
  #closing: Promise<void> | undefined;
  readonly #iterator: AsyncIterator<E>;
  readonly #signal: AbortSignal;
  readonly #isLast: (event: E) => boolean;
  readonly #onAbort = () => void this.#close();

  constructor(
    first: IteratorResult<E>,
    iterator: AsyncIterator<E>,
    signal: AbortSignal,
    isLast: (event: E) => boolean,
  ) {
    this.#pending = first;
    this.#iterator = iterator;
    this.#signal = signal;
    this.#isLast = isLast;
    if (signal.aborted) void this.#close();
    else signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<E, undefined>> {
    if (this.#finished) {
      if (this.#signal.aborted && !this.#answered) throw aborted();
      return { done: true, value: undefined };
    }
    let result: IteratorResult<E>;
    try {
      result = this.#pending ?? (await this.#iterator.next());
    } catch (error) {
      // The engine's iterator has ended by throwing: nothing is left to close.
      this.#finished = true;
      this.#signal.removeEventListener('abort', this.#onAbort);
      throw error;
    }
    this.#pending = undefined;
    if (result.done === true) {
      await this.#close();
      throw this.#signal.aborted ? aborted() : missingDone();
    }
    // Closed before the answer reaches the client, so the model is free once the client sees it.
    if (this.#isLast(result.value)) {
      this.#answered = true;
      await this.#close();
    }
    return { done: false, value: result.value };
  }

  async return(): Promise<IteratorResult<E, undefined>> {
    await this.#close();
    return { done: true, value: undefined };
  }

  #close(): Promise<void> {
    this.#finished = true;
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#closing ??= Promise.resolve(this.#iterator.return?.()).then(
      () => undefined,
      () => undefined,
    );
    return this.#closing;
  }
}

function aborted(): LmtabError {
  return new LmtabError('aborted', 'The request was aborted by the client.');
}

/** The error for an event stream that ended without its `done` event. */
export function missingDone(): LmtabError {
  return new LmtabError(
    'engine_failure',
    'The engine stopped without finishing its answer: expected its last event, received none.',
  );
}
