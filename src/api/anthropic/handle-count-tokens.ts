import { assertAcceptsImages } from '../assert-accepts-images.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { countTokensRequestSchema } from './messages-request-schema.js';
import { anthropicPromptToGenerate, countAnthropicImages } from './messages-request-to-generate.js';

/**
 * `POST /v1/messages/count_tokens`: `{input_tokens}`, the prompt as the model reads it (its own
 * tokenizer and chat template, system, tools and images included).
 */
export async function handleCountTokens(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(countTokensRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  assertAcceptsImages(context.engine, record, countAnthropicImages(wire), 'messages');
  const converted = await anthropicPromptToGenerate(wire, record.id, {
    fetch: context.fetch,
    signal: context.signal,
    maxImageBytes: context.maxBodyBytes,
  });
  const request = customizeRequest(record, converted, { clock: context.clock });
  const inputTokens = await context.engine.countTokens(request, { signal: context.signal });
  return jsonResponse({ input_tokens: inputTokens });
}
