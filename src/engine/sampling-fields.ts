import type { SamplingOptions } from './engine.js';

/**
 * The one mapping of lmtab's sampling options to the engines' request fields: llama-server's JSON
 * names (which wllama forwards as they are, and which web-llm's OpenAI-shaped request shares). An
 * option added to {@link SamplingOptions} must be named here, or the build fails.
 */
const fieldNames = {
  temperature: 'temperature',
  topP: 'top_p',
  topK: 'top_k',
  minP: 'min_p',
  repeatPenalty: 'repeat_penalty',
  frequencyPenalty: 'frequency_penalty',
  presencePenalty: 'presence_penalty',
  seed: 'seed',
  stop: 'stop',
  maxTokens: 'max_tokens',
  ignoreEos: 'ignore_eos',
} as const satisfies Record<keyof Required<SamplingOptions>, string>;

/** How an engine's request differs from llama-server's names. */
export interface SamplingSpelling {
  /** Options the engine names otherwise (web-llm: `repetition_penalty`). */
  rename?: Partial<Record<keyof SamplingOptions, string>>;
  /** Options the engine has no sampler for: not sent (the engine's docs say which). */
  omit?: readonly (keyof SamplingOptions)[];
}

/** The request fields for `sampling`, without the options it leaves unset. */
export function samplingFields(
  sampling: SamplingOptions,
  { rename = {}, omit = [] }: SamplingSpelling = {},
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [option, name] of Object.entries(fieldNames) as [keyof SamplingOptions, string][]) {
    const value = sampling[option];
    if (value === undefined || omit.includes(option)) continue;
    fields[rename[option] ?? name] = value;
  }
  return fields;
}
