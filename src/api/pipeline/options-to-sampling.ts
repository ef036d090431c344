import type { SamplingOptions } from '../../engine/index.js';
import { normalizeStop } from './normalize-stop.js';

/** Sampling settings and context length read from Ollama-named options. */
export interface OllamaSettings {
  sampling: SamplingOptions;
  /** From `num_ctx`, in tokens. */
  contextLength?: number;
}

/**
 * Converts Ollama-named options (a request's `options`, or a Modelfile's PARAMETERs, whose values
 * may be strings) to sampling settings; unknown names are ignored, as Ollama does.
 */
export function optionsToSampling(options: Readonly<Record<string, unknown>>): OllamaSettings {
  const sampling: SamplingOptions = {};
  const set = <K extends keyof SamplingOptions>(key: K, value: SamplingOptions[K] | undefined) => {
    if (value !== undefined) sampling[key] = value;
  };
  set('temperature', toNumber(options.temperature));
  set('topK', toNumber(options.top_k));
  set('topP', toNumber(options.top_p));
  set('minP', toNumber(options.min_p));
  set('repeatPenalty', toNumber(options.repeat_penalty));
  set('presencePenalty', toNumber(options.presence_penalty));
  set('frequencyPenalty', toNumber(options.frequency_penalty));
  set('seed', toNumber(options.seed));
  // num_predict -1 (infinite) and -2 (fill the context) both mean no token limit here.
  const numPredict = toNumber(options.num_predict);
  set('maxTokens', numPredict !== undefined && numPredict >= 0 ? numPredict : undefined);
  set('stop', normalizeStop(toStringList(options.stop)));
  const contextLength = toNumber(options.num_ctx);
  return contextLength === undefined ? { sampling } : { sampling, contextLength };
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return undefined;
}

function toStringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return undefined;
}
