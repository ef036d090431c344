export { engineDefaults } from './engine-defaults.js';
export { createWllamaEngine } from './wllama-engine.js';
export type { WllamaEngine, WllamaEngineOptions } from './wllama-engine.js';
export {
  describeAdapter,
  gpuPowerPreference,
  isNvidiaAdapter,
  keyGpuLimits,
} from './gpu-adapter.js';
export type { GpuAdapterLike, GpuAdapterReport, KeyGpuLimit } from './gpu-adapter.js';
export { nvidiaChromeFlags, nvidiaF16Hint, shaderF16Reason } from './shader-f16-reason.js';
export { createWebLlmEngine, webLlmModelRecord } from './web-llm-engine.js';
export type { WebLlmEngineLike, WebLlmEngineOptions } from './web-llm-engine.js';
export { createEngineSwitch } from './engine-switch.js';
export type { EngineSwitchOptions } from './engine-switch.js';
export { mlcCatalog, mlcUnsupportedReason } from './mlc-catalog.js';
export type { MlcCatalogEntry } from './mlc-catalog.js';
export { toWebLlmChatRequest, toWebLlmCompletionRequest } from './web-llm-request.js';
export type { WebLlmChatRequestOptions } from './web-llm-request.js';
export { webLlmEvents } from './web-llm-events.js';
export type { WebLlmEventsOptions } from './web-llm-events.js';
export { probeCapabilities } from './capability-probe.js';
export { confirmBackend, planBackend } from './plan-backend.js';
export type { Capabilities } from './capability-probe.js';
export {
  assertCanEmbed,
  assertCanGenerate,
  assertCanRerank,
  isReranker,
  embeddingPooling,
  isEmbeddingOnly,
  modelCapabilities,
} from './embedding-model.js';
export type { EmbeddingPooling } from './embedding-model.js';
export type {
  AudioFormat,
  ChatMessage,
  ContentPart,
  SpeakRequest,
  SpeechChunk,
  TranscribeEvent,
  TranscribeRequest,
  EmbedInput,
  EmbedRequest,
  EmbedResult,
  Engine,
  RerankRequest,
  RerankResult,
  TokenizeRequest,
  TokenizeResult,
  DetokenizeRequest,
  EngineInfo,
  EngineSettings,
  FinishReason,
  GenerateEvent,
  GenerateInput,
  GenerateOptions,
  GenerateRequest,
  JsonSchema,
  OutputFormat,
  SampledLogprob,
  TokenLogprob,
  ToolCall,
  ToolChoice,
  ToolDefinition,
  LoadedModel,
  LoadOptions,
  SamplingOptions,
  Timings,
  Usage,
} from './engine.js';
export {
  cpuAddressSpace,
  cpuBytes,
  cpuFileLimit,
  gibText,
  gpuBytes,
  memoryNeed,
  modelFit,
} from './memory-fit.js';
export { memory64AddressSpace, memory64Supported } from './memory64-build.js';
export type {
  CpuBuildKind,
  DeviceMemory,
  MemoryNeed,
  MemoryNeedOptions,
  ModelFit,
  PathFit,
} from './memory-fit.js';
export { countPromptTokens } from './count-prompt-tokens.js';
export type { GenerateFn } from './count-prompt-tokens.js';
export { loadEngineSettings, saveEngineSettings } from './saved-engine-settings.js';
export { gpuWorkerPrologue, loseDeviceMessage } from './gpu-worker-prologue.js';
export type { CpuBuild } from './cpu-build.js';
