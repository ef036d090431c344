import type { Usage } from '../../../engine/index.js';
import type { OpenAiUsage } from '../response-types.js';

/** Converts engine token counts to OpenAI's `usage`. */
export function toOpenAiUsage(usage: Usage): OpenAiUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedPromptTokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens } }),
  };
}
