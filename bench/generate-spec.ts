import type { BenchMessage } from './chat-turns.js';

/** One generation the benchmark asks for: a raw prompt or a chat, greedy, exactly `maxTokens` long. */
export interface GenerateSpec {
  /** Model id in the store. */
  model: string;
  /** A raw prompt (no chat template), for prompt-processing figures. */
  prompt?: string;
  /** A chat, rendered by the model's template. */
  messages?: BenchMessage[];
  /** Tokens to generate; end-of-sequence is ignored so every run generates this many. */
  maxTokens: number;
}

/** The OpenAI wire request of a spec, streamed with a usage chunk, and the path it goes to. */
export function wireRequest(spec: GenerateSpec): { path: string; body: Record<string, unknown> } {
  const common = {
    model: spec.model,
    max_tokens: spec.maxTokens,
    temperature: 0,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
  };
  return spec.messages
    ? { path: '/v1/chat/completions', body: { ...common, messages: spec.messages } }
    : { path: '/v1/completions', body: { ...common, prompt: spec.prompt ?? '' } };
}
