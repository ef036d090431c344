import { LmtabError } from '../errors/index.js';
import type { GenerateEvent, GenerateOptions, GenerateRequest } from './engine.js';

/** A generate function, as every engine has one. */
export type GenerateFn = (
  request: GenerateRequest,
  options?: GenerateOptions,
) => AsyncIterable<GenerateEvent>;

/**
 * Counts a request's prompt tokens with the engine itself: neither wllama 3.8.1 nor web-llm offers
 * a tokenize call that applies the chat template, so the prompt is processed for one token and
 * the `done` event's usage is read. The processed prompt stays in the prompt cache, so the request
 * that usually follows a count starts from it.
 */
export async function countPromptTokens(
  generate: GenerateFn,
  request: GenerateRequest,
  options: GenerateOptions = {},
): Promise<number> {
  // Sampling, format and logprobs change what is generated, not the prompt.
  const probe: GenerateRequest = { ...request, sampling: { maxTokens: 1 } };
  delete probe.format;
  delete probe.logprobs;
  for await (const event of generate(probe, options)) {
    if (event.type === 'done') return event.usage.promptTokens;
  }
  throw new LmtabError(
    'engine_failure',
    'The engine stopped without counting the prompt: expected a done event, received none.',
  );
}
