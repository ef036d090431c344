export { createRelay } from './create-relay.js';
export type { EngineEvent, Relay, RelayOptions } from './create-relay.js';
export type { RelayLogEntry } from './forward-request.js';
export { isolationHeaders } from './static-files.js';
export { defaultProfileDir, lmtabHome } from './lmtab-home.js';
export { loadOrCreateSecret, newSecret } from './relay-secret.js';
export { checkClientKey, presentedKey, viaProxy, type ClientKeys } from './client-auth.js';
export { isLoopbackName, isRelayHost } from './host-check.js';
export { lanAddresses } from './lan-addresses.js';
export {
  defaultDrainMs,
  defaultEngineTimeoutMs,
  defaultQueueLimit,
  defaultRelayHost,
  defaultRelayPort,
} from './relay-defaults.js';
