import { errorTable, toLmtabError } from '../../errors/index.js';
import type { GenerateEvent, Usage } from '../../engine/index.js';
import { newId } from '../encoders/new-id.js';
import { missingDone } from '../pipeline/start-generation.js';

/** An output item of a response. */
export type OutputItem =
  | {
      type: 'message';
      id: string;
      role: 'assistant';
      status: ItemStatus;
      content: OutputText[];
    }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      /** The `namespace` tool the function came from, if any. */
      namespace?: string;
      arguments: string;
      status: ItemStatus;
    }
  | {
      type: 'reasoning';
      id: string;
      summary: never[];
      content: ReasoningText[];
      status: ItemStatus;
    };

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';
interface OutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
}
interface ReasoningText {
  type: 'reasoning_text';
  text: string;
}

/** The Response object's usage. */
export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** A Response object (`object: "response"`); the request's settings are echoed in `settings`. */
export interface ResponseObject extends Record<string, unknown> {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  model: string;
  output: OutputItem[];
  /** Set once the response ends (OpenAI's spec has no null here: absent until then). */
  usage?: ResponseUsage;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' } | null;
}

/** One streamed event: its `type` (also the SSE event name) and payload, numbered in order. */
export interface ResponseStreamEvent extends Record<string, unknown> {
  type: string;
  sequence_number: number;
}

/** OpenAI's usage of a response from the engine's counts. */
export function toResponseUsage(usage: Usage, reasoningTokens: number): ResponseUsage {
  return {
    input_tokens: usage.promptTokens,
    // The engine does not count what it writes to its cache; OpenAI's schema requires the field.
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0, cache_write_tokens: 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: Math.min(reasoningTokens, usage.completionTokens) },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** Options of {@link encodeResponseEvents}. */
export interface EncodeResponseOptions {
  /** Throw a failure instead of ending with `error` and `response.failed`; default false. */
  throwFailures?: boolean;
  /** The namespace of each function that came from a `namespace` tool, by name; none by default. */
  namespaces?: ReadonlyMap<string, string>;
}

type OpenKind = 'message' | 'reasoning' | `call:${number}`;

/**
 * The typed events of a streamed response, as the OpenAI SDK's stream helpers read them:
 * `response.created`, `response.in_progress`, then per output item `output_item.added`, its
 * content part and deltas and their `.done` events, `output_item.done`, and last
 * `response.completed` (or `response.incomplete` at the token limit). A generation that fails
 * after the head ends with an `error` event and `response.failed`. Returns the final response.
 *
 * @param initial the response as it starts (status `in_progress`, no output, no usage)
 */
export async function* encodeResponseEvents(
  initial: ResponseObject,
  events: AsyncIterable<GenerateEvent>,
  options: EncodeResponseOptions = {},
): AsyncGenerator<ResponseStreamEvent, ResponseObject> {
  const response: ResponseObject = structuredClone(initial);
  let sequence = 0;
  const emit = (type: string, payload: Record<string, unknown>): ResponseStreamEvent => ({
    type,
    ...payload,
    sequence_number: sequence++,
  });
  const snapshot = () => ({ response: structuredClone(response) });
  yield emit('response.created', snapshot());
  yield emit('response.in_progress', snapshot());

  let open: OpenKind | undefined;
  let reasoningPieces = 0;
  const current = () => response.output[response.output.length - 1]!;
  const outputIndex = () => response.output.length - 1;

  function* close(status: ItemStatus): Generator<ResponseStreamEvent> {
    if (open === undefined) return;
    const item = current();
    const at = { item_id: item.id, output_index: outputIndex() };
    if (item.type === 'function_call') {
      yield emit('response.function_call_arguments.done', {
        ...at,
        name: item.name,
        arguments: item.arguments,
      });
    } else {
      const part = item.content[0]!;
      const doneType =
        item.type === 'message' ? 'response.output_text.done' : 'response.reasoning_text.done';
      yield emit(doneType, {
        ...at,
        content_index: 0,
        text: part.text,
        ...(item.type === 'message' ? { logprobs: [] } : {}),
      });
      yield emit('response.content_part.done', { ...at, content_index: 0, part: { ...part } });
    }
    item.status = status;
    open = undefined;
    yield emit('response.output_item.done', {
      output_index: outputIndex(),
      item: structuredClone(item),
    });
  }

  function* start(kind: OpenKind, item: OutputItem): Generator<ResponseStreamEvent> {
    yield* close('completed');
    const shown = structuredClone(item);
    response.output.push(item);
    open = kind;
    yield emit('response.output_item.added', { output_index: outputIndex(), item: shown });
    if (item.type === 'function_call') return;
    const part: OutputText | ReasoningText =
      item.type === 'message'
        ? { type: 'output_text', text: '', annotations: [], logprobs: [] }
        : { type: 'reasoning_text', text: '' };
    (item.content as (OutputText | ReasoningText)[]).push(part);
    yield emit('response.content_part.added', {
      item_id: item.id,
      output_index: outputIndex(),
      content_index: 0,
      part: { ...part },
    });
  }

  const startMessage = () =>
    start('message', {
      type: 'message',
      id: newId('msg_'),
      role: 'assistant',
      status: 'in_progress',
      content: [],
    });

  try {
    for await (const event of events) {
      switch (event.type) {
        case 'reasoning': {
          if (event.text === '') break;
          reasoningPieces++;
          if (open !== 'reasoning') {
            yield* start('reasoning', {
              type: 'reasoning',
              id: newId('rs_'),
              summary: [],
              content: [],
              status: 'in_progress',
            });
          }
          const item = current() as Extract<OutputItem, { type: 'reasoning' }>;
          item.content[0]!.text += event.text;
          yield emit('response.reasoning_text.delta', {
            item_id: item.id,
            output_index: outputIndex(),
            content_index: 0,
            delta: event.text,
          });
          break;
        }
        case 'token': {
          if (event.text === '') break;
          if (open !== 'message') yield* startMessage();
          const item = current() as Extract<OutputItem, { type: 'message' }>;
          item.content[0]!.text += event.text;
          yield emit('response.output_text.delta', {
            item_id: item.id,
            output_index: outputIndex(),
            content_index: 0,
            delta: event.text,
            logprobs: [],
          });
          break;
        }
        case 'tool_call': {
          const kind: OpenKind = `call:${event.index}`;
          if (open !== kind) {
            const name = event.name ?? '';
            const namespace = options.namespaces?.get(name);
            yield* start(kind, {
              type: 'function_call',
              id: newId('fc_'),
              call_id: event.id ?? newId('call_'),
              name,
              ...(namespace === undefined ? {} : { namespace }),
              arguments: '',
              status: 'in_progress',
            });
          }
          if (event.argumentsDelta === '') break;
          const item = current() as Extract<OutputItem, { type: 'function_call' }>;
          item.arguments += event.argumentsDelta;
          yield emit('response.function_call_arguments.delta', {
            item_id: item.id,
            output_index: outputIndex(),
            delta: event.argumentsDelta,
          });
          break;
        }
        case 'done': {
          // OpenAI's answers always hold an item: an empty answer is an empty message, which the
          // Agents SDK takes as the final output (with no item at all it asks again, forever).
          if (response.output.length === 0) yield* startMessage();
          const incomplete = event.finishReason === 'length';
          yield* close(incomplete ? 'incomplete' : 'completed');
          response.status = incomplete ? 'incomplete' : 'completed';
          response.incomplete_details = incomplete ? { reason: 'max_output_tokens' } : null;
          response.usage = toResponseUsage(event.usage, reasoningPieces);
          yield emit(incomplete ? 'response.incomplete' : 'response.completed', snapshot());
          return response;
        }
      }
    }
    throw missingDone();
  } catch (error) {
    const failure = toLmtabError(error);
    if (failure.code === 'aborted' || options.throwFailures === true) throw failure;
    response.status = 'failed';
    response.error = { code: errorTable[failure.code].openAiType, message: failure.message };
    yield emit('error', {
      code: failure.code,
      message: failure.message,
      param: failure.param ?? null,
    });
    yield emit('response.failed', snapshot());
    return response;
  }
}

/** Reads the whole response, for requests that are not streamed (a failure is thrown). */
export async function collectResponse(
  initial: ResponseObject,
  events: AsyncIterable<GenerateEvent>,
  options: Omit<EncodeResponseOptions, 'throwFailures'> = {},
): Promise<ResponseObject> {
  const encoder = encodeResponseEvents(initial, events, { ...options, throwFailures: true });
  for (;;) {
    const next = await encoder.next();
    if (next.done === true) return next.value;
  }
}
