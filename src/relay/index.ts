export { createRelay } from './create-relay.js';
export type { EngineEvent, Relay, RelayOptions } from './create-relay.js';
export type { RelayLogEntry } from './forward-request.js';
export { isolationHeaders } from './static-files.js';
export { defaultProfileDir, lmtabHome } from './lmtab-home.js';
