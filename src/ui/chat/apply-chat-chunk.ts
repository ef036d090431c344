import type { ChatCompletionChunk } from '../client/api-client.js';
import type { TurnToolCall } from './conversation.js';

/** The `chat.completion.chunk` fields the Chat tab reads (an error event too, when given one). */
export interface ChatChunk extends ChatCompletionChunk {
  error?: { message: string; code?: string | null };
}

/** An answer as its chunks have built it so far. */
export interface AnswerSoFar {
  content: string;
  /** The thinking text (`delta.reasoning_content`). */
  reasoning: string;
  /** Calls in index order, arguments growing as their pieces arrive. */
  toolCalls: TurnToolCall[];
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Chunks that carried text, reasoning or a call piece (a token count when usage is missing). */
  pieces: number;
}

/** A new, empty {@link AnswerSoFar}. */
export function emptyAnswer(): AnswerSoFar {
  return { content: '', reasoning: '', toolCalls: [], pieces: 0 };
}

/**
 * Adds one streamed chunk to an answer (in place): text, reasoning and tool-call pieces (assembled
 * by `index`, as OpenAI streams them), the finish reason and usage. Returns whether the chunk
 * carried anything to show; throws the error an SSE stream ends with.
 */
export function applyChatChunk(answer: AnswerSoFar, chunk: ChatChunk): boolean {
  if (chunk.error) {
    const code = chunk.error.code ? ` (${chunk.error.code})` : '';
    throw new Error(`${chunk.error.message}${code}`);
  }
  if (chunk.usage) answer.usage = chunk.usage;
  const choice = chunk.choices?.[0];
  if (!choice) return false;
  answer.finishReason = choice.finish_reason ?? answer.finishReason;
  const delta = choice.delta ?? {};
  let shown = false;
  if (delta.reasoning_content) {
    answer.reasoning += delta.reasoning_content;
    shown = true;
  }
  if (delta.content) {
    answer.content += delta.content;
    shown = true;
  }
  for (const piece of delta.tool_calls ?? []) {
    let call = answer.toolCalls[piece.index];
    if (call === undefined) {
      call = { id: '', name: '', arguments: '' };
      answer.toolCalls[piece.index] = call;
    }
    if (piece.id) call.id = piece.id;
    if (piece.function?.name) call.name = piece.function.name;
    call.arguments += piece.function?.arguments ?? '';
    shown = true;
  }
  if (shown) answer.pieces += 1;
  return shown;
}
