import type { Engine, GenerateRequest } from '../../engine/index.js';
import { errorTable, toLmtabError, type LmtabError } from '../../errors/index.js';
import { newId } from '../encoders/new-id.js';
import { startEvents, startGeneration } from '../pipeline/start-generation.js';
import { encodePcm16, resamplePcm16 } from './realtime-audio.js';

/** A server event: its `type` and fields, in OpenAI's Realtime shapes. */
export type ServerEvent = { type: string } & Record<string, unknown>;

/** A conversation item as clients see it. */
export type RealtimeItem = Record<string, unknown> & { id: string; type: string };

/** A `realtime.response` object, its `output` filled in as the answer goes. */
export type RealtimeResponse = Record<string, unknown> & { id: string; output: RealtimeItem[] };

/** What one answer needs of its session. */
export interface AnswerContext {
  engine: Engine;
  /** The stored model's id. */
  model: string;
  /** The session's voice, for a model that speaks. */
  voice: string | { id: string } | undefined;
  emit(event: ServerEvent): void;
  /** Tells the client of a failure (an `error` event). */
  fail(error: LmtabError): void;
  /** An output item began: the session adds it to its conversation, when the answer goes there. */
  onItem(item: RealtimeItem): void;
  /** An output item is complete. */
  onItemDone(item: RealtimeItem): void;
  /** Why a cancelled answer was cancelled: the client left, or a new turn began. */
  cancelReason(): 'client_cancelled' | 'turn_detected';
}

/**
 * Runs one answer on the engine and tells it as Realtime events: its message (text deltas, or for
 * a model that speaks the transcript and then the audio), its function calls, and
 * `response.done` with its status and usage. `response` is filled in as it goes.
 */
export async function runAnswer(
  context: AnswerContext,
  request: GenerateRequest,
  response: RealtimeResponse,
  modality: 'text' | 'audio',
  signal: AbortSignal,
): Promise<void> {
  const { engine } = context;
  const responseId = response.id;
  let message: { item: RealtimeItem; outputIndex: number } | undefined;
  let text = '';
  const calls = new Map<number, { item: RealtimeItem; outputIndex: number }>();
  let status: 'completed' | 'cancelled' | 'incomplete' | 'failed' = 'completed';
  let statusDetails: Record<string, unknown> | null = null;
  let usage: Record<string, unknown> | null = null;
  const partType = modality === 'audio' ? 'audio' : 'text';
  const textKey = modality === 'audio' ? 'transcript' : 'text';
  const addItem = (item: RealtimeItem) => {
    const outputIndex = response.output.length;
    response.output.push(item);
    context.emit({
      type: 'response.output_item.added',
      response_id: responseId,
      output_index: outputIndex,
      item,
    });
    context.onItem(item);
    return outputIndex;
  };
  const openMessage = () => {
    if (message !== undefined) return message;
    const item = {
      id: newId('item_'),
      type: 'message',
      object: 'realtime.item',
      status: 'in_progress',
      role: 'assistant',
      content: [] as Record<string, unknown>[],
    };
    message = { item, outputIndex: addItem(item) };
    context.emit({
      type: 'response.content_part.added',
      response_id: responseId,
      item_id: item.id,
      output_index: message.outputIndex,
      content_index: 0,
      part: { type: partType, [textKey]: '' },
    });
    return message;
  };
  try {
    const events = await startGeneration(engine, request, signal);
    for await (const event of events) {
      if (event.type === 'token' && event.text !== '') {
        const open = openMessage();
        text += event.text;
        context.emit({
          type:
            modality === 'audio'
              ? 'response.output_audio_transcript.delta'
              : 'response.output_text.delta',
          response_id: responseId,
          item_id: open.item.id,
          output_index: open.outputIndex,
          content_index: 0,
          delta: event.text,
        });
      } else if (event.type === 'tool_call') {
        let call = calls.get(event.index);
        if (call === undefined) {
          const item = {
            id: newId('item_'),
            type: 'function_call',
            object: 'realtime.item',
            status: 'in_progress',
            call_id: event.id ?? newId('call_'),
            name: event.name ?? '',
            arguments: '',
          };
          call = { item, outputIndex: addItem(item) };
          calls.set(event.index, call);
        }
        if (event.name !== undefined && call.item.name === '') call.item.name = event.name;
        call.item.arguments = `${String(call.item.arguments)}${event.argumentsDelta}`;
        if (event.argumentsDelta !== '') {
          context.emit({
            type: 'response.function_call_arguments.delta',
            response_id: responseId,
            item_id: call.item.id,
            output_index: call.outputIndex,
            call_id: call.item.call_id,
            delta: event.argumentsDelta,
          });
        }
      } else if (event.type === 'done') {
        const inputTokens = event.usage.promptTokens;
        const outputTokens = event.usage.completionTokens;
        usage = {
          total_tokens: inputTokens + outputTokens,
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          input_token_details: { cached_tokens: event.usage.cachedPromptTokens ?? 0 },
          output_token_details: { text_tokens: outputTokens, audio_tokens: 0 },
        };
        if (event.finishReason === 'length') {
          status = 'incomplete';
          statusDetails = { type: 'incomplete', reason: 'max_output_tokens' };
        }
      }
    }
    if (modality === 'audio' && text !== '' && message !== undefined) {
      await speak(context, text, message.item.id, message.outputIndex, responseId, signal);
    }
  } catch (error) {
    const lmtab = toLmtabError(error);
    if (signal.aborted) {
      status = 'cancelled';
      statusDetails = {
        type: 'cancelled',
        reason: context.cancelReason(),
      };
    } else {
      status = 'failed';
      statusDetails = {
        type: 'failed',
        error: {
          type: errorTable[lmtab.code].openAiType,
          code: lmtab.code,
          message: lmtab.message,
        },
      };
      context.fail(lmtab);
    }
  }
  const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
  if (message !== undefined) {
    const part = { type: partType, [textKey]: text };
    message.item.content = [
      { type: modality === 'audio' ? 'output_audio' : 'output_text', [textKey]: text },
    ];
    message.item.status = itemStatus;
    const ids = {
      response_id: responseId,
      item_id: message.item.id,
      output_index: message.outputIndex,
      content_index: 0,
    };
    context.emit(
      modality === 'audio'
        ? { type: 'response.output_audio_transcript.done', ...ids, transcript: text }
        : { type: 'response.output_text.done', ...ids, text },
    );
    context.emit({ type: 'response.content_part.done', ...ids, part });
    context.emit({
      type: 'response.output_item.done',
      response_id: responseId,
      output_index: message.outputIndex,
      item: message.item,
    });
    context.onItemDone(message.item);
  }
  for (const call of calls.values()) {
    call.item.status = itemStatus;
    context.emit({
      type: 'response.function_call_arguments.done',
      response_id: responseId,
      item_id: call.item.id,
      output_index: call.outputIndex,
      call_id: call.item.call_id,
      name: call.item.name,
      arguments: call.item.arguments,
    });
    context.emit({
      type: 'response.output_item.done',
      response_id: responseId,
      output_index: call.outputIndex,
      item: call.item,
    });
    context.onItemDone(call.item);
  }
  context.emit({
    type: 'response.done',
    response: { ...response, status, status_details: statusDetails, usage },
  });
}

/** Speaks an answer's text with a model that generates audio, as 24 kHz PCM deltas. */
async function speak(
  context: AnswerContext,
  text: string,
  itemId: string,
  outputIndex: number,
  responseId: string,
  signal: AbortSignal,
): Promise<void> {
  const { voice } = context;
  const chunks = await startEvents(
    context.engine.speak(
      {
        model: context.model,
        input: text,
        format: 'pcm',
        ...(typeof voice === 'string' ? { voice } : voice === undefined ? {} : { voice: voice.id }),
      },
      { signal },
    ),
    signal,
    (chunk) => chunk.final,
  );
  const ids = {
    response_id: responseId,
    item_id: itemId,
    output_index: outputIndex,
    content_index: 0,
  };
  for await (const chunk of chunks) {
    if (chunk.audio.length > 0) {
      context.emit({
        type: 'response.output_audio.delta',
        ...ids,
        delta: encodePcm16(resamplePcm16(chunk.audio, chunk.sampleRate)),
      });
    }
  }
  context.emit({ type: 'response.output_audio.done', ...ids });
}
