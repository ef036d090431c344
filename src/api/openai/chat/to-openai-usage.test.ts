import { describe, expect, it } from 'vitest';
import { toOpenAiUsage } from './to-openai-usage.js';

describe('toOpenAiUsage', () => {
  it('counts the whole prompt and says how much of it came from the cache', () => {
    expect(
      toOpenAiUsage({ promptTokens: 76, cachedPromptTokens: 72, completionTokens: 4 }),
    ).toEqual({
      prompt_tokens: 76,
      completion_tokens: 4,
      total_tokens: 80,
      prompt_tokens_details: { cached_tokens: 72 },
    });
  });

  it('leaves the details out when the engine does not say (web-llm)', () => {
    expect(toOpenAiUsage({ promptTokens: 7, completionTokens: 3 })).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
  });
});
