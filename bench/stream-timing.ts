import type { Usage } from '../src/engine/index.js';
import { eachSseJson } from '../src/streams/index.js';
import { perSecond } from './stats.js';

/** Durations an engine reports for one generation (llama.cpp's own timings). */
export interface EngineTimings {
  /** Prompt processing, ms. */
  promptMs: number;
  /** Token generation, ms. */
  decodeMs: number;
}

/** What a client saw of one streamed generation; times in milliseconds. */
export interface StreamTiming {
  /** Request sent to the first text piece. */
  ttftMs: number;
  /** Request sent to the end of the answer. */
  totalMs: number;
  /** First to last text piece. */
  spanMs: number;
  /** Text pieces received (one per token when every token prints text). */
  pieces: number;
  text: string;
  /** Prompt tokens, as the engine counts them (the whole prompt). */
  promptTokens: number;
  /** Of those, the ones the engine took from its prompt cache, where it says. */
  cachedPromptTokens?: number;
  /** Generated tokens, as the engine counts them. */
  completionTokens: number;
  /** The engine's own timings, where the path carries them. */
  engine?: EngineTimings;
}

/** Records when the pieces of one answer arrive, on the client's clock. */
export class StreamClock {
  private first = NaN;
  private last = NaN;
  private pieces = 0;
  private text = '';

  /**
   * @param startedAt When the request was sent, on `now`'s clock.
   * @param now Milliseconds clock (`performance.now`).
   */
  constructor(
    private readonly startedAt: number,
    private readonly now: () => number,
  ) {}

  /** Notes one piece of text arriving now; empty pieces are not text. */
  piece(text: string): void {
    if (text === '') return;
    const at = this.now();
    if (this.pieces === 0) this.first = at;
    this.last = at;
    this.pieces += 1;
    this.text += text;
  }

  /** The timing of the finished answer. */
  finish(usage: Usage, engine?: EngineTimings): StreamTiming {
    return {
      ttftMs: this.first - this.startedAt,
      totalMs: this.now() - this.startedAt,
      spanMs: this.last - this.first,
      pieces: this.pieces,
      text: this.text,
      ...usage,
      ...(engine ? { engine } : {}),
    };
  }
}

/** Prompt tokens the engine processed: the whole prompt less what its cache held. */
export function processedPromptTokens(timing: StreamTiming): number {
  return timing.promptTokens - (timing.cachedPromptTokens ?? 0);
}

/** Decode speed a client sees: tokens after the first over the time from first to last piece. */
export function clientDecodeTokS(timing: StreamTiming): number {
  return perSecond(timing.completionTokens - 1, timing.spanMs);
}

interface SseChunk {
  choices?: { delta?: { content?: string | null }; text?: string }[];
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens?: number };
  } | null;
}

/**
 * Reads an OpenAI SSE stream (chat or text completion, with `stream_options.include_usage`) and
 * times its pieces; rejects on an error event.
 */
export async function timeSseStream(
  body: ReadableStream<Uint8Array>,
  clock: StreamClock,
): Promise<StreamTiming> {
  let usage: Usage = { promptTokens: 0, completionTokens: 0 };
  // Pieces are timed in the turn their bytes are read, as a client sees them.
  await eachSseJson<SseChunk>(body, (chunk) => {
    const choice = chunk.choices?.[0];
    clock.piece(choice?.delta?.content ?? choice?.text ?? '');
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens;
      usage = {
        promptTokens: chunk.usage.prompt_tokens,
        ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
        completionTokens: chunk.usage.completion_tokens,
      };
    }
  });
  return clock.finish(usage);
}
