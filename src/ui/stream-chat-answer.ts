import {
  emptyAnswer,
  applyChatChunk,
  type AnswerSoFar,
  type ChatChunk,
} from './apply-chat-chunk.js';
import type { AnswerTiming } from './answer-stats.js';
import type { ChatRequestBody } from './build-chat-request.js';
import { readApiError } from './read-api-error.js';
import { readSse } from './read-sse.js';

/** Options of {@link streamChatAnswer}. */
export interface StreamChatAnswerOptions {
  /** Aborting stops the answer (it keeps what arrived). */
  signal: AbortSignal;
  /** Called after every chunk that carried text, reasoning or a tool-call piece. */
  onPiece: (answer: AnswerSoFar) => void;
}

/** How a streamed answer ended. */
export interface StreamedAnswer {
  answer: AnswerSoFar;
  timing: AnswerTiming;
  /** Why it failed (the API's message), when it did and was not stopped. */
  error?: string;
  stopped: boolean;
}

/** Streams one answer from the page's own `/v1/chat/completions`. */
export async function streamChatAnswer(
  body: ChatRequestBody,
  options: StreamChatAnswerOptions,
): Promise<StreamedAnswer> {
  const { signal } = options;
  const answer = emptyAnswer();
  const timing: AnswerTiming = { started: performance.now(), first: 0, last: 0, end: 0 };
  let error: string | undefined;
  try {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    if (!response.ok || !response.body) throw new Error(await readApiError(response));
    for await (const chunk of readSse<ChatChunk>(response.body)) {
      if (applyChatChunk(answer, chunk)) {
        timing.last = performance.now();
        if (timing.first === 0) timing.first = timing.last;
        options.onPiece(answer);
      }
    }
    if (answer.finishReason === undefined) {
      throw new Error('The answer ended without a finish reason.');
    }
  } catch (caught) {
    if (!signal.aborted) error = caught instanceof Error ? caught.message : String(caught);
  }
  timing.end = performance.now();
  return { answer, timing, stopped: signal.aborted, ...(error === undefined ? {} : { error }) };
}
