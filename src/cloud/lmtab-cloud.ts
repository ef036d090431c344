// What app files import as `lmtab/cloud`: only what an app definition needs, so bundling an app
// file pulls in nothing of the relay or the CLI.
export { defineApp, isAppDefinition, MAX_KEEP_ALIVE_SECONDS } from './define-app.js';
export type { AppDefinition, AppOptions } from './define-app.js';
export { formatDuration, parseDuration } from './duration.js';
