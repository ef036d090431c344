import { LmtabError } from '../../errors/index.js';
import { emptyAnswer, applyChatChunk, type AnswerSoFar } from './apply-chat-chunk.js';
import { answerStats, type AnswerTiming } from './answer-stats.js';
import type { ApiClient, StreamChatBody } from '../client/api-client.js';
import { failureText } from '../client/failure-text.js';
import type { TurnStats } from './conversation.js';

/** Options of {@link streamChatAnswer}. */
export interface StreamChatAnswerOptions {
  /** The page's API client. */
  api: ApiClient;
  /** Aborting stops the answer (it keeps what arrived). */
  signal: AbortSignal;
  /** Called after every chunk that carried text, reasoning or a tool-call piece. */
  onPiece: (answer: AnswerSoFar) => void;
}

/** How a streamed answer ended. */
export interface StreamedAnswer {
  answer: AnswerSoFar;
  timing: AnswerTiming;
  /** Its stats (tok/s by {@link answerStats}), undefined when it failed before anything came. */
  stats: TurnStats | undefined;
  /** Why it failed, as `message (code)`, when it did and was not stopped. */
  error?: string;
  stopped: boolean;
}

/**
 * Streams one answer from the page's own `/v1/chat/completions`: the one streaming loop of the
 * page (the Chat tab and Discover's quick chat), so one model shows one speed everywhere.
 */
export async function streamChatAnswer(
  body: StreamChatBody,
  options: StreamChatAnswerOptions,
): Promise<StreamedAnswer> {
  const { signal } = options;
  const answer = emptyAnswer();
  const timing: AnswerTiming = { started: performance.now(), first: 0, last: 0, end: 0 };
  let error: string | undefined;
  try {
    for await (const chunk of options.api.streamChat(body, { signal })) {
      if (applyChatChunk(answer, chunk)) {
        timing.last = performance.now();
        if (timing.first === 0) timing.first = timing.last;
        options.onPiece(answer);
      }
    }
    if (answer.finishReason === undefined) {
      throw new LmtabError(
        'unexpected_response',
        'The answer ended without a finish reason: expected a last chunk with finish_reason.',
      );
    }
  } catch (caught) {
    if (!signal.aborted) error = failureText(caught);
  }
  timing.end = performance.now();
  const stopped = signal.aborted;
  const stats = answerStats(timing, { ...answer, stopped });
  return { answer, timing, stats, stopped, ...(error === undefined ? {} : { error }) };
}
