export { createHubClient, DEFAULT_HUB_ENDPOINT, modelCardLimit } from './hub-client.js';
export { featuredModels } from './featured-models.js';
export type { FeaturedCapability, FeaturedModel } from './featured-models.js';
export type {
  HubClient,
  HubClientOptions,
  HubFile,
  HubGgufSummary,
  HubListFilesOptions,
  HubModelInfo,
  HubModelInfoOptions,
  HubModelSummary,
  HubSearchOptions,
} from './hub-client.js';
export { buildGgufChoices, pickProjector } from './gguf-choices.js';
export type { GgufChoice, GgufChoices } from './gguf-choices.js';
export { canonicalModelName, parseModelReference, pickChoice } from './model-reference.js';
export type { ModelReference, PickChoiceOptions } from './model-reference.js';
export {
  bitsPerWeight,
  COMMON_QUANTIZATIONS,
  compareQuantizations,
  DEFAULT_QUANTIZATION,
  isKnownQuantization,
  nearestQuantization,
  normalizeQuantization,
  parseGgufFileName,
  parseQuantization,
  quantizationNote,
  sortQuantizations,
} from './quantization.js';
export type { GgufFileName } from './quantization.js';
export { assertRepoId, isRepoId } from './repo-id.js';
export {
  hubHeadersFor,
  hubSettingsChannel,
  loadHubSettings,
  saveHubSettings,
  watchHubSettings,
} from './hub-settings.js';
export type { HubSettings } from './hub-settings.js';
export { hubEndpointFromEnv } from './hub-endpoint-from-env.js';
