import type { GenerateRequest } from '../engine/index.js';
import type { ModelRecord } from '../store/index.js';
import { omitUndefined } from './omit-undefined.js';
import { optionsToSampling } from './ollama/options-to-sampling.js';

/**
 * Applies a custom model's settings (made from a Modelfile) to a generate request: its PARAMETERs
 * become sampling defaults (request fields win) and its SYSTEM is used when the chat has none.
 * This is the seam where Modelfile TEMPLATE rendering and MESSAGE history plug in later.
 */
export function customizeRequest(record: ModelRecord, request: GenerateRequest): GenerateRequest {
  const customization = record.customization;
  if (customization === undefined) return request;
  const defaults = optionsToSampling(customization.parameters);
  const customized: GenerateRequest = {
    ...request,
    sampling: { ...defaults.sampling, ...omitUndefined(request.sampling) },
  };
  const contextLength = request.contextLength ?? defaults.contextLength;
  if (contextLength !== undefined) customized.contextLength = contextLength;
  const { input } = request;
  const system = customization.system;
  // An empty SYSTEM clears the base model's system prompt, so it adds no message.
  if (
    system !== undefined &&
    system !== '' &&
    input.kind === 'chat' &&
    !input.messages.some((m) => m.role === 'system')
  ) {
    customized.input = {
      kind: 'chat',
      messages: [{ role: 'system', content: [{ type: 'text', text: system }] }, ...input.messages],
    };
  }
  return customized;
}
