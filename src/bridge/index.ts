export { isApiPath } from './frames.js';
export type {
  AbortFrame,
  ClientFrame,
  DataFrame,
  EndFrame,
  ErrorFrame,
  HeadFrame,
  HostAnnouncement,
  HostWanted,
  RequestFrame,
  ResponseFrame,
} from './frames.js';
export { frameToRequest, requestToFrame, serveFrame } from './serve-frames.js';
export type { FrameHandler } from './serve-frames.js';
export { fetchOverPort } from './port-client.js';
export type { FetchOverPortOptions } from './port-client.js';
export { servePort } from './serve-port.js';
export { startEngineHost } from './engine-host.js';
export type { EngineHostHandle, EngineHostOptions } from './engine-host.js';
