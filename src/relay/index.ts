export { createRelay } from './create-relay.js';
export type { EngineEvent, Relay, RelayOptions } from './create-relay.js';
export type { RelayLogEntry } from './exchange/forward-request.js';
export { isolationHeaders } from './front/static-files.js';
export { defaultProfileDir, lmtabHome } from './lmtab-home.js';
export { loadOrCreateSecret, newSecret } from './trust/relay-secret.js';
export { checkClientKey, presentedKey, viaProxy, type ClientKeys } from './trust/client-auth.js';
export { isLoopbackName, isRelayHost } from './trust/host-check.js';
export { lanAddresses } from './trust/lan-addresses.js';
export {
  defaultDrainMs,
  defaultEngineTimeoutMs,
  defaultQueueLimit,
  defaultRelayHost,
  defaultRelayPort,
} from './relay-defaults.js';
