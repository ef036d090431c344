import type { ModelRecord } from '../../store/index.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { formatModelfile, formatParameters } from './format-modelfile.js';
import { parseModelName } from './model-name-request-schema.js';
import { modelDetails } from './model-details.js';

/** `POST /api/show`: details, GGUF facts and capabilities of one model (and its Modelfile). */
export async function handleShow(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const record = await findModel(context.store, parseModelName(body));
  const customization = record.customization;
  const answer: Record<string, unknown> = {
    modelfile: formatModelfile(record.id, customization),
  };
  if (customization !== undefined) {
    if (Object.keys(customization.parameters).length > 0) {
      answer.parameters = formatParameters(customization.parameters);
    }
    if (customization.template !== undefined) answer.template = customization.template;
    if (customization.system !== undefined) answer.system = customization.system;
    if (customization.license !== undefined) answer.license = customization.license;
  }
  answer.details = modelDetails(record);
  answer.model_info = modelInfo(record);
  answer.capabilities = context.engine.supportsImages(record)
    ? ['completion', 'vision']
    : ['completion'];
  answer.modified_at = new Date(record.createdAt).toISOString();
  return jsonResponse(answer);
}

function modelInfo(record: ModelRecord): Record<string, string | number> {
  const { gguf } = record;
  const arch = gguf.architecture;
  const info: Record<string, string | number> = {
    'general.architecture': arch,
    'general.parameter_count': gguf.parameterCount,
  };
  if (gguf.name !== undefined) info['general.name'] = gguf.name;
  if (gguf.contextLength !== undefined) info[`${arch}.context_length`] = gguf.contextLength;
  if (gguf.embeddingLength !== undefined) info[`${arch}.embedding_length`] = gguf.embeddingLength;
  if (gguf.blockCount !== undefined) info[`${arch}.block_count`] = gguf.blockCount;
  if (gguf.expertCount !== undefined) info[`${arch}.expert_count`] = gguf.expertCount;
  return info;
}
