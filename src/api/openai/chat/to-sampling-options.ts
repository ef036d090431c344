import type { SamplingOptions } from '../../../engine/index.js';
import { normalizeStop } from '../../pipeline/normalize-stop.js';
import { omitUndefined } from '../../pipeline/omit-undefined.js';
import type { SamplingRequest } from './sampling-request-schema.js';

/** Converts OpenAI's sampling fields to the engine's names; unset fields stay absent. */
export function toSamplingOptions(wire: SamplingRequest): SamplingOptions {
  return omitUndefined({
    temperature: wire.temperature,
    topP: wire.top_p,
    topK: wire.top_k,
    minP: wire.min_p,
    // max_completion_tokens replaced max_tokens in OpenAI's API; a client sending both means it.
    maxTokens: wire.max_completion_tokens ?? wire.max_tokens,
    repeatPenalty: wire.repeat_penalty,
    frequencyPenalty: wire.frequency_penalty,
    presencePenalty: wire.presence_penalty,
    seed: wire.seed,
    stop: normalizeStop(wire.stop),
    ignoreEos: wire.ignore_eos,
  });
}
