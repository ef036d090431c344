export { isComplete, isHubPull, modelFormat } from './model-record.js';
export type {
  GgufSummary,
  MlcSource,
  ModelFormat,
  ModelRecord,
  ModelSource,
  StoredFile,
} from './model-record.js';
export type {
  ImportOptions,
  ModelBlobs,
  ModelParts,
  ModelStore,
  StoreProgress,
  StreamImportOptions,
} from './store.js';
export { createIdbModelStore, modelIdFromFileName } from './idb/idb-model-store.js';
export type { ChunkWriter, IdbModelStoreOptions, OrphanSweeper } from './idb/idb-model-store.js';
export { readGgufHeader, readGgufSummary } from './gguf-header.js';
export { readProjectorMedia, type ProjectorMedia } from './projector-media.js';
export type {
  GgufHeader,
  GgufMetadataValue,
  GgufTensorInfo,
  ReadGgufOptions,
} from './gguf-header.js';
export { Sha256 } from './sha256.js';
export type { Sha256State } from './sha256.js';
export { downloadModel } from './downloads/download-model.js';
export type {
  DownloadEvent,
  DownloadFile,
  DownloadOptions,
  DownloadRequest,
  DownloadStore,
} from './downloads/download-model.js';
export { resumeRequest } from './downloads/resume-request.js';
export { hubDownloadRequest } from './downloads/hub-download-request.js';
export type { HubDownloadRequestOptions } from './downloads/hub-download-request.js';
export { resolveHubModel } from './downloads/resolve-hub-model.js';
export type { ResolvedHubModel, ResolveHubModelOptions } from './downloads/resolve-hub-model.js';
export { DownloadManager } from './downloads/download-manager.js';
export type {
  DownloadManagerOptions,
  DownloadState,
  DownloadStatus,
} from './downloads/download-manager.js';
export { RateMeter } from './downloads/rate-meter.js';
export type { RateMeterOptions } from './downloads/rate-meter.js';
export { ensureSpace, formatBytes } from './storage-space.js';
export {
  parseStoredFilePath,
  storedFilePath,
  storedFilePrefix,
  storedModelPath,
} from './stored-file-url.js';
export { serveStoredFile } from './serve-stored-file.js';
export { downloadMlcModel, mlcModelBaseUrl } from './downloads/download-mlc-model.js';
export type { DownloadMlcOptions, MlcModelSpec } from './downloads/download-mlc-model.js';
export { createIdbResponseStore, createMemoryResponseStore } from './response-store.js';
export type { IdbResponseStoreOptions, ResponseStore, StoredResponse } from './response-store.js';
