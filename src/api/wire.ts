// The API's second entry, for code on both sides of the relay (the relay, the cloud gateway, the
// CLI, the service worker): routes as data, error answers in each protocol's shape, body limits and
// token readers, without a handler. Everything it reaches runs anywhere: no DOM, no Node built-ins
// (tsconfig.node.json compiles it without the DOM, tsconfig.browser.json without Node's types).
export { acceptedAudioFormats, readAudioFacts } from './media/audio-file.js';
export type { AudioFileFacts } from './media/audio-file.js';
export { defaultMaxBlobBytes, defaultMaxBodyBytes } from './body/default-limits.js';
export { describeBytes } from './body/describe-bytes.js';
export { createNdjsonEncoder, formatNdjsonLine } from './encoders/ndjson-encoder.js';
export type {
  EngineInfoBody,
  EngineStatusBody,
  LoadedModelBody,
} from './ollama/engine-status-wire.js';
export { ollamaErrorBody, ollamaErrorResponse } from './ollama/ollama-error.js';
export type { OllamaErrorBody } from './ollama/ollama-error.js';
export { openAiErrorBody, openAiErrorResponse } from './openai/openai-error.js';
export type { OpenAiErrorBody } from './openai/openai-error.js';
export { apiPrefixes, isApiPath, routeScope, tokenReaderFor } from './routing/route-table.js';
export type { RouteScope } from './routing/route-table.js';
export { createSseEncoder, formatSseEvent, sseDone } from './encoders/sse-encoder.js';
export type { SseMessage } from './encoders/sse-encoder.js';
export type { TokenReader } from './pipeline/token-reader.js';
export { pcm16, wavFile } from './media/wav-file.js';
export {
  decodePcm16Base64,
  encodeBase64,
  encodePcm16,
  realtimeRate,
} from './realtime/pcm-base64.js';
export {
  asLmtabError,
  errorResponse,
  isOpenAiPath,
  streamErrorBytes,
} from './routing/wire-errors.js';
