import { LmtabError } from '../errors/index.js';
import type { Engine, GenerateEvent, GenerateRequest } from '../engine/index.js';

/**
 * Starts a generation and waits for its first event, so that failures before any output (model
 * load, busy engine) still become an HTTP status; returns every event, the first one included.
 */
export async function startGeneration(
  engine: Engine,
  request: GenerateRequest,
  signal: AbortSignal,
): Promise<AsyncIterable<GenerateEvent>> {
  const iterator = engine.generate(request, { signal })[Symbol.asyncIterator]();
  const first = await iterator.next();
  return replay(first, iterator);
}

async function* replay(
  first: IteratorResult<GenerateEvent>,
  iterator: AsyncIterator<GenerateEvent>,
): AsyncGenerator<GenerateEvent> {
  try {
    let next = first;
    while (next.done !== true) {
      yield next.value;
      if (next.value.type === 'done') return;
      next = await iterator.next();
    }
    throw missingDone();
  } finally {
    await iterator.return?.();
  }
}

/** The error for an event stream that ended without its `done` event. */
export function missingDone(): LmtabError {
  return new LmtabError(
    'engine_failure',
    'The engine stopped without finishing the generation: expected a done event, received none.',
  );
}
