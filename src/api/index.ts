export { createRouter } from './create-router.js';
export type { Router, RouterHandleOptions, RouterOptions } from './create-router.js';
export type { HubAccess } from './route-context.js';
export { customizeRequest } from './customize-request.js';
export type { CustomizeRequestOptions } from './customize-request.js';
export { createNdjsonEncoder, formatNdjsonLine } from './ndjson-encoder.js';
export { ollamaErrorBody, ollamaErrorResponse } from './ollama/ollama-error.js';
export type { OllamaErrorBody } from './ollama/ollama-error.js';
export { openAiErrorBody, openAiErrorResponse } from './openai/openai-error.js';
export type { OpenAiErrorBody } from './openai/openai-error.js';
export { createSseEncoder, formatSseEvent, sseDone } from './sse-encoder.js';
export type { SseMessage } from './sse-encoder.js';
export { asLmtabError, errorResponse, isOpenAiPath, streamErrorBytes } from './wire-errors.js';
export { assertEnforceableSchema } from './assert-enforceable-schema.js';
export type {
  EngineInfoBody,
  EngineStatusBody,
  LoadedModelBody,
} from './ollama/engine-status-body.js';
export { defaultMaxBlobBytes, defaultMaxBodyBytes } from './default-limits.js';
