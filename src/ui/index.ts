export { LmtabApp } from './lmtab-app.js';
export { LmtabChatView } from './lmtab-chat-view.js';
export { LmtabModelImport } from './lmtab-model-import.js';
export { LmtabMlcCatalog } from './lmtab-mlc-catalog.js';
export { LmtabUpdateBanner } from './lmtab-update-banner.js';
export type { UpdateState } from './lmtab-update-banner.js';
export { loadEngineSettings, saveEngineSettings } from './engine-settings.js';
export { readSse } from './read-sse.js';
