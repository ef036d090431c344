// The API's entry for the tab (the router and what runs beside it); wire.ts is the part that the
// relay, the gateway and the CLI read too.
export { createRouter } from './routing/create-router.js';
export type { Router, RouterHandleOptions, RouterOptions } from './routing/create-router.js';
export type { HubAccess } from './pipeline/route-context.js';
export { pruneUploads } from './ollama/blobs/prune-uploads.js';
export type { PruneUploadsOptions } from './ollama/blobs/prune-uploads.js';
export { customizeRequest } from './pipeline/customize-request.js';
export type { CustomizeRequestOptions } from './pipeline/customize-request.js';
export { assertEnforceableSchema } from './tools/assert-enforceable-schema.js';
export type {
  EngineInfoBody,
  EngineStatusBody,
  LoadedModelBody,
} from './ollama/engine-status-wire.js';
