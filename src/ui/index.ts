export { LmtabApp } from './lmtab-app.js';
export { LmtabChatView } from './lmtab-chat-view.js';
export { LmtabModelImport } from './lmtab-model-import.js';
export { LmtabServerPanel } from './lmtab-server-panel.js';
export { RelayServer } from './relay-server.js';
export type { RelayServerOptions } from './relay-server.js';
export { loadEngineSettings, saveEngineSettings } from './engine-settings.js';
export { readSse } from './read-sse.js';
