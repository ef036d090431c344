import type { ModelCustomization } from './model-customization.js';

/** Parameters under Ollama's names, as a Modelfile or an `/api` request's `options` hold them. */
export type OllamaParameters = ModelCustomization['parameters'];

/** Lays `/api` options over Modelfile parameters by name (so `num_predict: -1` lifts a limit). */
export function mergeParameters(
  defaults: Readonly<OllamaParameters>,
  request: Readonly<OllamaParameters>,
): OllamaParameters {
  const merged: OllamaParameters = { ...defaults };
  for (const [name, value] of Object.entries(request)) {
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}
