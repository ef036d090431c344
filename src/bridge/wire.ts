// The bridge's second entry, for both ends of the relay link: the frames the tab, the service
// worker and the relay exchange, the relay's health and session shapes, the model-name peek, the
// answer's token count and the app's CSP. Everything it reaches runs anywhere: no DOM, no Node built-ins.
export { contentSecurityPolicy } from './content-security-policy.js';
export { isApiPath } from './frames.js';
export type {
  AbortFrame,
  ClientFrame,
  DataFrame,
  EndFrame,
  EnginePortGranted,
  EnginePortRefused,
  EnginePortWanted,
  ErrorFrame,
  HeadFrame,
  HostAnnouncement,
  HostWanted,
  RequestFrame,
  ResponseFrame,
} from './frames.js';
export { createTokenCounter, type TokenCounter } from './count-tokens.js';
export { ModelNameSniffer, readModelName } from './read-model-name.js';
export type { HeadlessState, RelayHealth, RelaySession } from './relay-health.js';
export {
  decodeBodyPiece,
  encodeBodyPiece,
  engineProtocol,
  engineQueryFlag,
  engineSecretProtocolPrefix,
  engineSocketPath,
  pairingFragmentName,
  pulledBodyPath,
  parseRelayFrame,
  parseTabFrame,
  relaySessionPath,
} from './socket-frames.js';
export type {
  CreditFrame,
  HelloFrame,
  RelayToTabFrame,
  SlotsFrame,
  SocketRequestFrame,
  TabToRelayFrame,
} from './socket-frames.js';
