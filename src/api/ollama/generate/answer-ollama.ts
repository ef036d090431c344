import type { GenerateEvent, GenerateRequest } from '../../../engine/index.js';
import { collectGeneration } from '../../pipeline/collect-generation.js';
import { jsonResponse } from '../../encoders/json-response.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { loadOrUnload } from './load-or-unload.js';
import { ndjsonResponse } from './ndjson-response.js';
import { encodeOllamaAnswer, encodeOllamaChunks } from './ollama-encoder.js';

/** What {@link answerOllama} needs of a parsed `/api/generate` or `/api/chat` request. */
export interface OllamaAsk {
  kind: 'generate' | 'chat';
  /** Id of the stored model. */
  model: string;
  /** The engine request, customized for the stored model. */
  request: GenerateRequest;
  /** Starts its generation (the pipeline's `start`). */
  start: () => Promise<AsyncIterable<GenerateEvent>>;
  /** Whether the request gives nothing to answer (no prompt, no messages): load or unload. */
  empty: boolean;
  keepAlive: string | number | null | undefined;
  /** `stream`, true by default. */
  stream: boolean | null | undefined;
}

/** The answer of `/api/generate` and `/api/chat`: NDJSON chunks (default) or one JSON object. */
export async function answerOllama(context: RouteContext, ask: OllamaAsk): Promise<Response> {
  const { kind, model, request } = ask;
  if (ask.empty) {
    return loadOrUnload(context, {
      kind,
      model,
      keepAlive: ask.keepAlive,
      contextLength: request.contextLength,
    });
  }
  const events = await ask.start();
  const options = { kind, model, clock: context.clock };
  if (ask.stream ?? true) {
    return ndjsonResponse(encodeOllamaChunks(options, events), {
      onCancel: (reason) => context.abort(reason),
    });
  }
  return jsonResponse(encodeOllamaAnswer(options, await collectGeneration(events)));
}
