import OpenAI from 'openai';
import type { Relay } from '../../../src/relay/index.js';

/** A first message for the relay's tests. */
export const hello = [{ role: 'user' as const, content: 'Hello there' }];

/** An OpenAI client of a relay's `/v1`, without retries. */
export function openAiClient(relay: Relay): OpenAI {
  return new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any', maxRetries: 0 });
}

/** Reads an async iterator to its end, resolving with the error it throws (if any). */
export async function drain(iterator: AsyncIterator<unknown>): Promise<unknown> {
  try {
    for (;;) if ((await iterator.next()).done) return undefined;
  } catch (error) {
    return error;
  }
}
