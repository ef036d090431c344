export { createWllamaEngine } from './wllama-engine.js';
export type { WllamaEngineOptions } from './wllama-engine.js';
export { probeCapabilities } from './capability-probe.js';
export { confirmBackend, planBackend } from './plan-backend.js';
export type { Capabilities } from './capability-probe.js';
export type {
  ChatMessage,
  ContentPart,
  Engine,
  EngineInfo,
  EngineSettings,
  FinishReason,
  GenerateEvent,
  GenerateInput,
  GenerateOptions,
  GenerateRequest,
  LoadedModel,
  LoadOptions,
  SamplingOptions,
  Timings,
  Usage,
} from './engine.js';
