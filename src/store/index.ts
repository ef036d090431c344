export { isComplete, modelFormat } from './model-record.js';
export type {
  GgufSummary,
  MlcSource,
  ModelCustomization,
  ModelFormat,
  ModelRecord,
  ModelSource,
  StoredFile,
} from './model-record.js';
export type { ImportOptions, ModelBlobs, ModelStore, StoreProgress } from './store.js';
export { createIdbModelStore, modelIdFromFileName } from './idb-model-store.js';
export type { ChunkWriter, IdbModelStoreOptions } from './idb-model-store.js';
export { readGgufHeader, readGgufSummary } from './gguf-header.js';
export type {
  GgufHeader,
  GgufMetadataValue,
  GgufTensorInfo,
  ReadGgufOptions,
} from './gguf-header.js';
export { Sha256 } from './sha256.js';
export { ensureSpace, formatBytes } from './storage-space.js';
export {
  parseStoredFilePath,
  storedFilePath,
  storedFilePrefix,
  storedModelPath,
} from './stored-file-url.js';
export { serveStoredFile } from './serve-stored-file.js';
export { downloadMlcModel, mlcModelBaseUrl } from './download-mlc-model.js';
export type { DownloadMlcOptions, MlcModelSpec } from './download-mlc-model.js';
