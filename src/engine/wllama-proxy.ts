import type { Wllama } from '@wllama/wllama/esm/index.js';
import { WllamaError } from '@wllama/wllama/esm/index.js';

/**
 * The part of wllama's private worker proxy lmtab drives: its glue actions, by name, with a message
 * wllama's JavaScript serializes. wllama's public calls do not cover embeddings in slots, raw
 * completions that survive partial characters, or lmtab's own glue actions.
 */
export interface WllamaProxy {
  wllamaAction(name: string, body: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** A loaded instance's worker proxy; before `loadModel` there is none, and this throws as wllama does. */
export function wllamaProxy(wllama: Wllama): WllamaProxy {
  const proxy = (wllama as unknown as { proxy: WllamaProxy | null }).proxy;
  if (proxy === null) throw new WllamaError('loadModel() is not yet called', 'model_not_loaded');
  return proxy;
}
