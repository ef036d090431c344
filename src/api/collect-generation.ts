import type { GenerateEvent } from '../engine/index.js';
import { missingDone } from './start-generation.js';

/** The whole output of a generation, for answers that are not streamed. */
export interface CollectedGeneration {
  text: string;
  done: Extract<GenerateEvent, { type: 'done' }>;
}

/** Reads a generation to its end, joining the token texts. */
export async function collectGeneration(
  events: AsyncIterable<GenerateEvent>,
): Promise<CollectedGeneration> {
  let text = '';
  for await (const event of events) {
    if (event.type === 'token') text += event.text;
    else return { text, done: event };
  }
  throw missingDone();
}
