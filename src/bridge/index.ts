// The bridge's entry for the browser (page, worker, service worker); wire.ts is the part that the
// Node relay shares.
export { frameToRequest, requestToFrame, serveFrame } from './serve-frames.js';
export type { FrameHandler } from './serve-frames.js';
export { fetchOverPort } from './port-client.js';
export type { FetchOverPortOptions } from './port-client.js';
export { servePort } from './serve-port.js';
export { startEngineHost } from './engine-host.js';
export type { EngineHostHandle, EngineHostOptions } from './engine-host.js';
export { connectRelay, defaultEngineSlots } from './relay-connection.js';
export { fetchRelaySession } from './fetch-relay-session.js';
export type {
  ConnectRelayOptions,
  RelayConnection,
  RelayEvent,
  RelayRequestLog,
  RelayState,
} from './relay-connection.js';
