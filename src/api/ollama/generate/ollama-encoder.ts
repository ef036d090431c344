import type { GenerateEvent, SampledLogprob, ToolCall } from '../../../engine/index.js';
import type { CollectedGeneration } from '../../pipeline/collect-generation.js';
import { missingDone } from '../../pipeline/start-generation.js';
import { parseCallArguments, unreadableCallText } from '../../tools/tool-call-text.js';
import { doneFields } from './done-fields.js';
import type {
  ChatChunk,
  ChatDone,
  GenerateChunk,
  GenerateDone,
  OllamaLogprob,
  OllamaToolCall,
} from './response-types.js';

/** Which Ollama endpoint an answer is for, with the model name and the clock for `created_at`. */
export interface OllamaAnswerOptions {
  kind: 'generate' | 'chat';
  model: string;
  /** Epoch milliseconds now. */
  clock: () => number;
}

type Chunk = GenerateChunk | GenerateDone | ChatChunk | ChatDone;

/** Parts of one chunk besides its text. */
interface ChunkExtras {
  thinking?: string;
  toolCalls?: ToolCall[];
  logprobs?: SampledLogprob[];
}

/** A whole `/api/generate` or `/api/chat` answer (`stream: false`). */
export function encodeOllamaAnswer(
  options: OllamaAnswerOptions,
  output: CollectedGeneration,
): GenerateDone | ChatDone {
  const calls = readableCalls(output.toolCalls);
  const extras: ChunkExtras = {
    ...(output.reasoning === '' ? {} : { thinking: output.reasoning }),
    ...(calls.readable.length === 0 ? {} : { toolCalls: calls.readable }),
    ...(output.logprobs === undefined ? {} : { logprobs: output.logprobs }),
  };
  return { ...head(options, output.text + calls.text, extras), ...doneFields(output.done) } as
    GenerateDone | ChatDone;
}

/**
 * The NDJSON chunks of a streamed `/api/generate` or `/api/chat` answer. Tool calls come whole, in
 * one chunk before the last, as Ollama sends them (its clients parse each call's arguments once).
 */
export async function* encodeOllamaChunks(
  options: OllamaAnswerOptions,
  events: AsyncIterable<GenerateEvent>,
): AsyncGenerator<Chunk> {
  const calls: ToolCall[] = [];
  for await (const event of events) {
    switch (event.type) {
      case 'token':
        if (event.text !== '' || event.logprobs !== undefined) {
          const extras = event.logprobs === undefined ? {} : { logprobs: event.logprobs };
          yield { ...head(options, event.text, extras), done: false } as Chunk;
        }
        continue;
      case 'reasoning':
        if (event.text !== '') {
          yield { ...head(options, '', { thinking: event.text }), done: false } as Chunk;
        }
        continue;
      case 'tool_call': {
        const call = (calls[event.index] ??= { id: '', name: '', arguments: '' });
        if (event.id !== undefined) call.id = event.id;
        if (event.name !== undefined) call.name = event.name;
        call.arguments += event.argumentsDelta;
        continue;
      }
      case 'done': {
        const made = readableCalls(calls.filter((call) => call !== undefined));
        if (made.readable.length > 0 || made.text !== '') {
          const extras = made.readable.length === 0 ? {} : { toolCalls: made.readable };
          yield { ...head(options, made.text, extras), done: false } as Chunk;
        }
        yield { ...head(options, ''), ...doneFields(event) } as Chunk;
        return;
      }
    }
  }
  throw missingDone();
}

function toOllamaLogprobs(entries: readonly SampledLogprob[]): OllamaLogprob[] {
  return entries.map((entry) => ({
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes,
    top_logprobs: entry.top.map(({ token, logprob, bytes }) => ({ token, logprob, bytes })),
  }));
}

/**
 * The calls whose arguments are JSON, and the others as text (`name(arguments)`), which the answer
 * carries in its content rather than failing (see tool-call-text.ts).
 */
function readableCalls(calls: readonly ToolCall[]): { readable: ToolCall[]; text: string } {
  const readable = calls.filter((call) => parseCallArguments(call.arguments) !== undefined);
  const text = calls
    .filter((call) => !readable.includes(call))
    .map((call) => unreadableCallText(call.name, call.arguments))
    .join('\n');
  return { readable, text };
}

function toOllamaToolCall(call: ToolCall): OllamaToolCall {
  const parsed = parseCallArguments(call.arguments)?.value;
  const args =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  return { function: { name: call.name, arguments: args } };
}

/** `model`, `created_at`, the text under the endpoint's key, and any thinking, calls, logprobs. */
export function head(
  options: OllamaAnswerOptions,
  text: string,
  extras: ChunkExtras = {},
): Omit<GenerateChunk, 'done'> | Omit<ChatChunk, 'done'> {
  const base = { model: options.model, created_at: new Date(options.clock()).toISOString() };
  const logprobs =
    extras.logprobs === undefined ? {} : { logprobs: toOllamaLogprobs(extras.logprobs) };
  const thinking = extras.thinking === undefined ? {} : { thinking: extras.thinking };
  if (options.kind === 'generate') return { ...base, response: text, ...thinking, ...logprobs };
  const calls =
    extras.toolCalls === undefined ? {} : { tool_calls: extras.toolCalls.map(toOllamaToolCall) };
  return {
    ...base,
    message: { role: 'assistant', content: text, ...thinking, ...calls },
    ...logprobs,
  };
}
