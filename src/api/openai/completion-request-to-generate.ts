import type { GenerateRequest } from '../../engine/index.js';
import type { CompletionRequest } from './completion-request-schema.js';
import { toSamplingOptions } from './to-sampling-options.js';

/** Converts a `/v1/completions` body to a raw-prompt generate request for `model`. */
export function completionRequestToGenerate(
  wire: CompletionRequest,
  model: string,
): GenerateRequest {
  const prompt = typeof wire.prompt === 'string' ? wire.prompt : wire.prompt[0];
  return {
    model,
    input: { kind: 'prompt', prompt: prompt ?? '' },
    sampling: toSamplingOptions(wire),
  };
}
