import type { EmbedResult } from '../../../engine/index.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { isUnloadNow } from '../generate/keep-alive-schema.js';

/** What both Ollama embedding endpoints ask of the engine. */
export interface OllamaEmbedAsk {
  /** Id of the stored model. */
  model: string;
  inputs: string[];
  truncate: boolean;
  keepAlive: string | number | null | undefined;
  contextLength: number | undefined;
}

/**
 * Embeds (or with no inputs only loads the model, as Ollama does); `keep_alive` zero unloads the
 * model afterwards. Other `keep_alive` values leave the engine's keep-alive in force.
 */
export async function runEmbed(context: RouteContext, ask: OllamaEmbedAsk): Promise<EmbedResult> {
  const result = await context.engine.embed(
    {
      model: ask.model,
      inputs: ask.inputs,
      truncate: ask.truncate,
      ...(ask.contextLength === undefined ? {} : { contextLength: ask.contextLength }),
    },
    { signal: context.signal },
  );
  if (isUnloadNow(ask.keepAlive)) await context.engine.unload(ask.model);
  return result;
}
