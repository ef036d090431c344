import { LmtabError } from '../errors/index.js';
import type { Engine, GenerateEvent, GenerateRequest } from '../engine/index.js';

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
  const iterator = engine.generate(request, { signal })[Symbol.asyncIterator]();
  const first = await iterator.next();
  return new StartedGeneration(first, iterator, signal);
}

/** The events of a started generation; see {@link startGeneration}. */
class StartedGeneration implements AsyncIterableIterator<GenerateEvent, undefined> {
  #pending: IteratorResult<GenerateEvent> | undefined;
  #finished = false;
  #answered = false;
  #closing: Promise<void> | undefined;
  readonly #iterator: AsyncIterator<GenerateEvent>;
  readonly #signal: AbortSignal;
  readonly #onAbort = () => void this.#close();

  constructor(
    first: IteratorResult<GenerateEvent>,
    iterator: AsyncIterator<GenerateEvent>,
    signal: AbortSignal,
  ) {
    this.#pending = first;
    this.#iterator = iterator;
    this.#signal = signal;
    if (signal.aborted) void this.#close();
    else signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<GenerateEvent, undefined>> {
    if (this.#finished) {
      if (this.#signal.aborted && !this.#answered) throw aborted();
      return { done: true, value: undefined };
    }
    let result: IteratorResult<GenerateEvent>;
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
    if (result.value.type === 'done') {
      this.#answered = true;
      await this.#close();
    }
    return { done: false, value: result.value };
  }

  async return(): Promise<IteratorResult<GenerateEvent, undefined>> {
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
    'The engine stopped without finishing the generation: expected a done event, received none.',
  );
}
