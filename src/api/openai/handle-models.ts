import { isComplete } from '../../store/index.js';
import type { ModelRecord } from '../../store/index.js';
import { findModel } from '../pipeline/find-model.js';
import { jsonResponse } from '../encoders/json-response.js';
import { isStagedBlob } from '../pipeline/blob-digest.js';
import type { RouteContext } from '../pipeline/route-context.js';
import type { OpenAiModel } from './response-types.js';

/** `GET /v1/models`: every complete stored model. */
export async function handleListModels(context: RouteContext): Promise<Response> {
  const records = (await context.store.list()).filter((r) => isComplete(r) && !isStagedBlob(r));
  return jsonResponse({ object: 'list', data: records.map(toOpenAiModel) });
}

/** `GET /v1/models/{id}`: one model (ids may hold `/` and `:`). */
export async function handleGetModel(context: RouteContext): Promise<Response> {
  return jsonResponse(toOpenAiModel(await findModel(context.store, context.params.id ?? '')));
}

function toOpenAiModel(record: ModelRecord): OpenAiModel {
  return {
    id: record.id,
    object: 'model',
    created: Math.floor(record.createdAt / 1000),
    owned_by: 'lmtab',
  };
}
