// engine/index.ts also exports the wllama engine, which Node builds (the CLI) cannot type-check.
import type { SamplingOptions } from '../engine/engine.js';
import { LmtabError } from '../errors/index.js';
import type { ModelCustomization } from '../store/index.js';
import { checkParameterValue, isParameterName } from './parameter-specs.js';

/** Sampling and context length, as a model's parameters or a request set them. */
export interface ModelSettings {
  sampling: SamplingOptions;
  /** Context length to load the model with, in tokens (`num_ctx`). */
  contextLength?: number;
}

/** Parameters under Ollama's names, as a Modelfile or an `/api` request's `options` hold them. */
export type OllamaParameters = ModelCustomization['parameters'];

/** Maps Ollama-named parameters to sampling options and context length, skipping unused names. */
export function samplingFromParameters(parameters: Readonly<OllamaParameters>): ModelSettings {
  const sampling: SamplingOptions = {};
  let contextLength: number | undefined;
  for (const [name, raw] of Object.entries(parameters)) {
    if (!isParameterName(name)) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (name !== 'stop' && values.length !== 1) fail(name, 'must be a single value, got a list');
    for (const value of values) {
      const problem = checkParameterValue(name, value);
      if (problem !== undefined) fail(name, problem);
    }
    const n = values[0] as number;
    switch (name) {
      case 'temperature':
        sampling.temperature = n;
        break;
      case 'top_k':
        sampling.topK = n;
        break;
      case 'top_p':
        sampling.topP = n;
        break;
      case 'min_p':
        sampling.minP = n;
        break;
      case 'repeat_penalty':
        sampling.repeatPenalty = n;
        break;
      case 'presence_penalty':
        sampling.presencePenalty = n;
        break;
      case 'frequency_penalty':
        sampling.frequencyPenalty = n;
        break;
      case 'seed':
        sampling.seed = n;
        break;
      case 'num_predict':
        if (n >= 0) sampling.maxTokens = n;
        break;
      case 'num_ctx':
        contextLength = n;
        break;
      case 'stop':
        sampling.stop = values.map(String);
        break;
      case 'repeat_last_n':
        // The engine's sampler takes no window for the repeat penalty.
        break;
    }
  }
  return contextLength === undefined ? { sampling } : { sampling, contextLength };
}

/** Lays a request's settings over a model's: each field the request sets wins, `0` and `""` too. */
export function mergeSettings(defaults: ModelSettings, request: ModelSettings): ModelSettings {
  const sampling: SamplingOptions = { ...defaults.sampling };
  for (const [key, value] of Object.entries(request.sampling)) {
    if (value !== undefined) Object.assign(sampling, { [key]: value });
  }
  const contextLength = request.contextLength ?? defaults.contextLength;
  return contextLength === undefined ? { sampling } : { sampling, contextLength };
}

/** Lays `/api` options over Modelfile parameters by name (so `num_predict: -1` lifts a limit). */
export function mergeParameters(
  defaults: Readonly<OllamaParameters>,
  request: Readonly<OllamaParameters>,
): OllamaParameters {
  const merged: OllamaParameters = { ...defaults };
  for (const [name, value] of Object.entries(request)) {
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

function fail(name: string, problem: string): never {
  throw new LmtabError('invalid_request', `parameter ${name} ${problem}`);
}
