import { projectorModalities } from '../media/projector-modalities.js';
import { jsonResponse } from '../encoders/json-response.js';
import type { RouteContext } from '../pipeline/route-context.js';
import { llamaServerModel } from './llama-server-model.js';

/**
 * `GET /props`: llama-server's server properties, which front ends read for the context window
 * they budget (`default_generation_settings.n_ctx`), the slots, the chat template and what the model
 * takes in. llama-server always holds its model, so lmtab loads the model first (the one named by
 * `?model=`, else the loaded or only chat model) and answers its loaded context, not a guess.
 */
export async function handleProps(context: RouteContext): Promise<Response> {
  const record = await llamaServerModel(context, context.url.searchParams.get('model'));
  const loaded = await context.engine.load(record.id, { signal: context.signal });
  // llama-server's modalities are what the model takes in: vision and audio.
  const { vision, audio } = await projectorModalities(context, record);
  return jsonResponse({
    default_generation_settings: {
      id: 0,
      n_ctx: loaded.contextLength,
      is_processing: loaded.active > 0,
      params: { n_predict: -1 },
    },
    total_slots: loaded.parallel,
    model_alias: record.id,
    model_path: record.id,
    modalities: { vision, audio },
    chat_template: record.gguf.chatTemplate ?? '',
    n_ctx_train: record.gguf.contextLength ?? loaded.contextLength,
    build_info: `lmtab ${context.version}`,
    is_sleeping: false,
  });
}
