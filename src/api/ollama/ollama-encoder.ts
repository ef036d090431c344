import type { GenerateEvent } from '../../engine/index.js';
import type { CollectedGeneration } from '../collect-generation.js';
import { missingDone } from '../start-generation.js';
import { doneFields } from './done-fields.js';
import type { ChatChunk, ChatDone, GenerateChunk, GenerateDone } from './response-types.js';

/** Which Ollama endpoint an answer is for, with the model name and the clock for `created_at`. */
export interface OllamaAnswerOptions {
  kind: 'generate' | 'chat';
  model: string;
  /** Epoch milliseconds now. */
  clock: () => number;
}

type Chunk = GenerateChunk | GenerateDone | ChatChunk | ChatDone;

/** A whole `/api/generate` or `/api/chat` answer (`stream: false`). */
export function encodeOllamaAnswer(
  options: OllamaAnswerOptions,
  output: CollectedGeneration,
): GenerateDone | ChatDone {
  return { ...head(options, output.text), ...doneFields(output.done) } as GenerateDone | ChatDone;
}

/** The NDJSON chunks of a streamed `/api/generate` or `/api/chat` answer. */
export async function* encodeOllamaChunks(
  options: OllamaAnswerOptions,
  events: AsyncIterable<GenerateEvent>,
): AsyncGenerator<Chunk> {
  for await (const event of events) {
    if (event.type === 'token') {
      if (event.text !== '') yield { ...head(options, event.text), done: false } as Chunk;
      continue;
    }
    yield { ...head(options, ''), ...doneFields(event) } as Chunk;
    return;
  }
  throw missingDone();
}

/** `model`, `created_at` and the text under the endpoint's key. */
export function head(
  options: OllamaAnswerOptions,
  text: string,
): Omit<GenerateChunk, 'done'> | Omit<ChatChunk, 'done'> {
  const base = { model: options.model, created_at: new Date(options.clock()).toISOString() };
  return options.kind === 'generate'
    ? { ...base, response: text }
    : { ...base, message: { role: 'assistant', content: text } };
}
