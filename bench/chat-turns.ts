import { processedPromptTokens, type StreamTiming } from './stream-timing.js';

/** A chat message as the benchmark sends it (OpenAI's shape, text only). */
export interface BenchMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** Generates one answer of exactly `maxTokens` tokens to `messages`, and times it. */
export type ChatGenerate = (messages: BenchMessage[], maxTokens: number) => Promise<StreamTiming>;

/** One conversation of the turn benchmark. */
export interface ChatWorkload {
  /** The user's message of each turn, in order. */
  userMessages: string[];
  /** Tokens of every answer. */
  replyTokens: number;
  /** The first message again with its first word changed: no cached prefix matches it. */
  coldFirstMessage: string;
}

/** Time to first token of each turn, and of the last turn processed from scratch. */
export interface ChatTurnsResult {
  /** Per turn, with the answers of the earlier turns in the prompt cache. */
  ttftMs: number[];
  /** Prompt tokens the engine processed on each turn (the conversation less what was cached). */
  promptTokens: number[];
  /** Prompt processing time the engine reports for each turn, where it reports one. */
  enginePromptMs: number[];
  /** The last turn's conversation again, with nothing cached that matches it. */
  coldTtftMs: number;
  coldPromptTokens: number;
}

/**
 * Runs a conversation turn by turn, sending each answer back as the next turn's history (as chat
 * clients do), then sends the last turn again with a changed first word, so the engine processes
 * the whole conversation again: the baseline the prompt cache is measured against.
 */
export async function runChatTurns(
  workload: ChatWorkload,
  generate: ChatGenerate,
): Promise<ChatTurnsResult> {
  const messages: BenchMessage[] = [];
  const ttftMs: number[] = [];
  const promptTokens: number[] = [];
  const enginePromptMs: number[] = [];
  let last: BenchMessage[] = [];
  for (const content of workload.userMessages) {
    messages.push({ role: 'user', content });
    last = [...messages];
    const timing = await generate(last, workload.replyTokens);
    ttftMs.push(timing.ttftMs);
    promptTokens.push(processedPromptTokens(timing));
    enginePromptMs.push(timing.engine?.promptMs ?? NaN);
    messages.push({ role: 'assistant', content: timing.text });
  }
  const cold = [{ role: 'user' as const, content: workload.coldFirstMessage }, ...last.slice(1)];
  const coldTiming = await generate(cold, workload.replyTokens);
  return {
    ttftMs,
    promptTokens,
    enginePromptMs,
    coldTtftMs: coldTiming.ttftMs,
    coldPromptTokens: processedPromptTokens(coldTiming),
  };
}
