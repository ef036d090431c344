import { jsonResponse } from '../../encoders/json-response.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { isUnloadNow } from './keep-alive-schema.js';
import { head } from './ollama-encoder.js';

/** Options of {@link loadOrUnload}. */
export interface LoadOrUnloadOptions {
  kind: 'generate' | 'chat';
  /** Id of the stored model. */
  model: string;
  /** The request's `keep_alive`; zero unloads. */
  keepAlive: string | number | null | undefined;
  /** Context length to load with, in tokens. */
  contextLength?: number;
}

/**
 * Answers a request with nothing to generate as Ollama does: loads the model (`done_reason:
 * "load"`), or unloads it when `keep_alive` is zero (`done_reason: "unload"`).
 */
export async function loadOrUnload(
  context: RouteContext,
  options: LoadOrUnloadOptions,
): Promise<Response> {
  const unload = isUnloadNow(options.keepAlive);
  if (unload) await context.engine.unload(options.model);
  else {
    await context.engine.load(options.model, {
      contextLength: options.contextLength,
      signal: context.signal,
    });
  }
  return jsonResponse({
    ...head({ kind: options.kind, model: options.model, clock: context.clock }, ''),
    done: true,
    done_reason: unload ? 'unload' : 'load',
  });
}
