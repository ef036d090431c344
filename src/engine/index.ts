export { engineDefaults } from './engine-defaults.js';
export { createWllamaEngine } from './wllama/wllama-engine.js';
export type { WllamaEngine, WllamaEngineOptions } from './wllama/wllama-engine.js';
export { describeAdapter, gpuPowerPreference, isNvidiaAdapter } from './gpu/gpu-adapter.js';
export { keyGpuLimits } from './engine.js';
export type { GpuAdapterReport, KeyGpuLimit } from './engine.js';
export type { GpuAdapterLike } from './gpu/gpu-adapter.js';
export { nvidiaChromeFlags, nvidiaF16Hint, shaderF16Reason } from './gpu/shader-f16-reason.js';
export { createWebLlmEngine, webLlmModelRecord } from './web-llm/web-llm-engine.js';
export type { WebLlmEngineLike, WebLlmEngineOptions } from './web-llm/web-llm-engine.js';
export { createEngineSwitch } from './engine-switch.js';
export type { EngineSwitchOptions } from './engine-switch.js';
export { mlcCatalog, mlcUnsupportedReason } from './web-llm/mlc-catalog.js';
export type { MlcCatalogEntry } from './web-llm/mlc-catalog.js';
export { toWebLlmChatRequest, toWebLlmCompletionRequest } from './web-llm/web-llm-request.js';
export type { WebLlmChatRequestOptions } from './web-llm/web-llm-request.js';
export { webLlmEvents } from './web-llm/web-llm-events.js';
export type { WebLlmEventsOptions } from './web-llm/web-llm-events.js';
export { probeCapabilities } from './gpu/capability-probe.js';
export { confirmBackend, planBackend } from './gpu/plan-backend.js';
export type { Capabilities } from './gpu/capability-probe.js';
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
} from './memory/memory-fit.js';
export { memory64Supported } from './builds/memory64-build.js';
export { memory64AddressSpace } from './memory/memory-fit.js';
export type {
  CpuBuildKind,
  DeviceMemory,
  MemoryNeed,
  MemoryNeedOptions,
  ModelFit,
  PathFit,
} from './memory/memory-fit.js';
export { countPromptTokens } from './count-prompt-tokens.js';
export type { GenerateFn } from './count-prompt-tokens.js';
export { loadEngineSettings, saveEngineSettings } from './saved-engine-settings.js';
export { gpuWorkerPrologue, loseDeviceMessage } from './gpu/gpu-worker-prologue.js';
export type { CpuBuild } from './builds/cpu-build.js';
