import type { GenerateRequest } from '../../../engine/index.js';
import { assertEnforceableSchema } from '../../tools/assert-enforceable-schema.js';
import type { CompletionRequest } from './completion-request-schema.js';
import { toSamplingOptions } from './to-sampling-options.js';

/** Converts a `/v1/completions` body to a raw-prompt generate request for `model`. */
export function completionRequestToGenerate(
  wire: CompletionRequest,
  model: string,
): GenerateRequest {
  const prompt = typeof wire.prompt === 'string' ? wire.prompt : wire.prompt[0];
  const request: GenerateRequest = {
    model,
    input: { kind: 'prompt', prompt: prompt ?? '' },
    sampling: toSamplingOptions(wire),
  };
  if (wire.logprobs != null) request.logprobs = { top: wire.logprobs };
  const format = wire.response_format;
  if (format?.type === 'json_object') request.format = { type: 'json' };
  if (format?.type === 'json_schema') {
    const schema = format.json_schema.schema;
    if (typeof schema === 'object' && schema !== null) {
      assertEnforceableSchema(schema, 'response_format.json_schema.schema');
      request.format = { type: 'json', schema };
    } else {
      request.format = { type: 'json' };
    }
  }
  return request;
}
