export { contentSecurityPolicy } from './content-security-policy.js';
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
export { connectRelay, defaultEngineSlots } from './relay-connection.js';
export { fetchRelaySession } from './fetch-relay-session.js';
export type {
  ConnectRelayOptions,
  RelayConnection,
  RelayEvent,
  RelayRequestLog,
  RelayState,
} from './relay-connection.js';
export {
  engineProtocol,
  engineQueryFlag,
  engineSecretProtocolPrefix,
  engineSocketPath,
  pairingFragmentName,
  relaySessionPath,
} from './socket-frames.js';
export type { HeadlessState, RelayHealth, RelaySession } from './relay-health.js';
export type { HelloFrame, SlotsFrame, SocketRequestFrame } from './socket-frames.js';
