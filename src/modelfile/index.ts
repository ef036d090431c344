export { formatModelfile } from './format-modelfile.js';
export type { FormatModelfileOptions } from './format-modelfile.js';
export { GoTemplate } from './go-template.js';
export type { ParseTemplateOptions, RenderTemplateOptions } from './go-template.js';
export type { Modelfile, ModelfileMessage, ModelfileParameters } from './modelfile.js';
export { normalizeParameters } from './normalize-parameters.js';
export { parseModelfile } from './parse-modelfile.js';
export { renderPrompt } from './render-prompt.js';
export type { PromptMessage, RenderPromptOptions } from './render-prompt.js';
export {
  mergeParameters,
  mergeSettings,
  samplingFromParameters,
} from './sampling-from-parameters.js';
export type { ModelSettings, OllamaParameters } from './sampling-from-parameters.js';
