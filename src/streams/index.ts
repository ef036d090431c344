export { createNdjsonDecoder } from './ndjson-decoder.js';
export {
  eachSseJson,
  parseStreamedJson,
  readNdjson,
  readNdjsonLines,
  readSseEvents,
  readSseJson,
} from './read-stream.js';
export { createSseDecoder } from './sse-decoder.js';
export type { SseEvent, StreamDecoder } from './sse-decoder.js';
export { requestBody, requestStreamBodies, requestWithBody } from './request-body.js';
