import type { GenerateEvent, Usage } from '../../engine/index.js';
import { missingDone } from '../pipeline/start-generation.js';
import { parseCallArguments, unreadableCallText } from '../tools/tool-call-text.js';

/** What every answer of one request shares. */
export interface MessageMeta {
  id: string;
  model: string;
}

/** One content block of an answer. */
export type AnswerBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

/** Anthropic's usage: `input_tokens` excludes the prompt tokens read from the cache. */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** Why the answer ended, in Anthropic's words. */
export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

/** A whole `message` answer. */
export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  content: AnswerBlock[];
  model: string;
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

/** One event of a streamed answer: its SSE `event:` name and its payload. */
export interface AnthropicStreamEvent {
  event: string;
  data: Record<string, unknown> & { type: string };
}

/** Anthropic's usage from the engine's counts. */
export function toAnthropicUsage(usage: Usage): AnthropicUsage {
  const cached = usage.cachedPromptTokens ?? 0;
  return {
    input_tokens: usage.promptTokens - cached,
    output_tokens: usage.completionTokens,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

type BlockKind = 'text' | 'thinking';

/** A tool call being read: its block is sent whole once its arguments are known to be JSON. */
interface PendingCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/**
 * The events of a streamed answer, in Anthropic's order: `message_start`, `ping`, then for each
 * content block `content_block_start`, its deltas and `content_block_stop`, then `message_delta`
 * (stop reason and usage) and `message_stop`. A block is closed when the engine moves to another
 * kind of output (thinking, text, another tool call). A tool call's block comes whole when the call
 * ends (its arguments in one `input_json_delta`), so that a call whose arguments are not JSON can
 * become a text block instead of a stream the client cannot parse. Returns the whole message.
 */
export async function* encodeMessageEvents(
  meta: MessageMeta,
  events: AsyncIterable<GenerateEvent>,
): AsyncGenerator<AnthropicStreamEvent, AnthropicMessage> {
  const message: AnthropicMessage = {
    ...meta,
    type: 'message',
    role: 'assistant',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
  };
  yield {
    event: 'message_start',
    data: { type: 'message_start', message: structuredClone(message) },
  };
  yield { event: 'ping', data: { type: 'ping' } };
  let open: BlockKind | undefined;
  let pending: PendingCall | undefined;
  const index = () => message.content.length - 1;

  const delta = (payload: Record<string, unknown>): AnthropicStreamEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index: index(), delta: payload },
  });
  const stop = (): AnthropicStreamEvent => ({
    event: 'content_block_stop',
    data: { type: 'content_block_stop', index: index() },
  });

  function* begin(block: AnswerBlock): Generator<AnthropicStreamEvent> {
    message.content.push(block);
    // A started block is empty: its text or its input's JSON follows in deltas.
    const shown =
      block.type === 'tool_use'
        ? { ...block, input: {} }
        : block.type === 'text'
          ? { ...block, text: '' }
          : { ...block };
    yield {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: index(), content_block: shown },
    };
  }

  /** @param cut the answer ended at the token limit, so a call's arguments may be unfinished */
  function* close(cut = false): Generator<AnthropicStreamEvent> {
    if (pending !== undefined) {
      const call = pending;
      pending = undefined;
      const parsed = parseCallArguments(call.arguments);
      if (parsed === undefined && !cut) {
        const text = unreadableCallText(call.name, call.arguments);
        yield* begin({ type: 'text', text });
        yield delta({ type: 'text_delta', text });
      } else {
        // Cut by max_tokens: stop_reason says so; the delta holds the unfinished text and the
        // whole answer an empty input rather than a failure.
        yield* begin({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: parsed?.value ?? {},
        });
        if (call.arguments !== '') {
          yield delta({ type: 'input_json_delta', partial_json: call.arguments });
        }
      }
      yield stop();
      return;
    }
    if (open === undefined) return;
    open = undefined;
    yield stop();
  }

  function* start(kind: BlockKind, block: AnswerBlock): Generator<AnthropicStreamEvent> {
    yield* close();
    yield* begin(block);
    open = kind;
  }

  for await (const event of events) {
    switch (event.type) {
      case 'reasoning': {
        if (event.text === '') break;
        if (open !== 'thinking')
          yield* start('thinking', { type: 'thinking', thinking: '', signature: '' });
        const block = message.content[index()] as Extract<AnswerBlock, { type: 'thinking' }>;
        block.thinking += event.text;
        yield delta({ type: 'thinking_delta', thinking: event.text });
        break;
      }
      case 'token': {
        if (event.text === '') break;
        if (open !== 'text') yield* start('text', { type: 'text', text: '' });
        const block = message.content[index()] as Extract<AnswerBlock, { type: 'text' }>;
        block.text += event.text;
        yield delta({ type: 'text_delta', text: event.text });
        break;
      }
      case 'tool_call': {
        if (pending?.index !== event.index) {
          yield* close();
          pending = {
            index: event.index,
            id: event.id ?? `toolu_${event.index}`,
            name: event.name ?? '',
            arguments: '',
          };
        }
        pending.arguments += event.argumentsDelta;
        break;
      }
      case 'done': {
        yield* close(event.finishReason === 'length');
        message.stop_reason = stopReason(
          event,
          message.content.some((block) => block.type === 'tool_use'),
        );
        message.stop_sequence = event.finishReason === 'stop' ? (event.stopSequence ?? null) : null;
        message.usage = toAnthropicUsage(event.usage);
        yield {
          event: 'message_delta',
          data: {
            type: 'message_delta',
            delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
            usage: message.usage,
          },
        };
        yield { event: 'message_stop', data: { type: 'message_stop' } };
        return message;
      }
    }
  }
  throw missingDone();
}

/** Reads the whole answer, for requests that are not streamed. */
export async function collectMessage(
  meta: MessageMeta,
  events: AsyncIterable<GenerateEvent>,
): Promise<AnthropicMessage> {
  const encoder = encodeMessageEvents(meta, events);
  for (;;) {
    const next = await encoder.next();
    if (next.done === true) return next.value;
  }
}

/** Formats one event as SSE text: `event: NAME` and its JSON `data`. */
export function formatAnthropicEvent(event: AnthropicStreamEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** @param called the answer holds tool calls (a forced call may end with finish reason `stop`) */
function stopReason(done: Extract<GenerateEvent, { type: 'done' }>, called: boolean): StopReason {
  if (called && (done.finishReason === 'tool_calls' || done.finishReason === 'stop')) {
    return 'tool_use';
  }
  if (done.finishReason === 'length') return 'max_tokens';
  return done.stopSequence === undefined ? 'end_turn' : 'stop_sequence';
}
