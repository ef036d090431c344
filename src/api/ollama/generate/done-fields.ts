import type { GenerateEvent } from '../../../engine/index.js';

/** The statistics of Ollama's last chunk; durations in nanoseconds. */
export interface OllamaDoneFields {
  done: true;
  done_reason: string;
  total_duration: number;
  load_duration: number;
  prompt_eval_count: number;
  prompt_eval_duration: number;
  eval_count: number;
  eval_duration: number;
}

const nanosecondsPerMillisecond = 1e6;

/** Converts a `done` event (milliseconds) to Ollama's final fields (nanoseconds). */
export function doneFields(done: Extract<GenerateEvent, { type: 'done' }>): OllamaDoneFields {
  const ns = (ms: number) => Math.round(ms * nanosecondsPerMillisecond);
  return {
    done: true,
    // Ollama ends an answer with calls as any other: `stop`.
    done_reason: done.finishReason === 'tool_calls' ? 'stop' : done.finishReason,
    total_duration: ns(done.timings.totalMs),
    load_duration: ns(done.timings.loadMs),
    prompt_eval_count: done.usage.promptTokens,
    prompt_eval_duration: ns(done.timings.promptMs),
    eval_count: done.usage.completionTokens,
    eval_duration: ns(done.timings.decodeMs),
  };
}
