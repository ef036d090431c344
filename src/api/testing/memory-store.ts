import { LmtabError } from '../../errors/index.js';
import { Sha256 } from '../../store/index.js';
import type { ModelRecord, ModelStore, StoreProgress, StoredFile } from '../../store/index.js';
import { modelRecordFixture } from './model-record-fixture.js';

/** A ModelStore double over records in memory; only what the API reads and writes is implemented. */
export interface MemoryStore extends ModelStore {
  /** Ids passed to `delete`, in order. */
  deleted: string[];
  /** The bytes of each imported file, by file id. */
  bytes: Map<string, Uint8Array<ArrayBuffer>>;
}

/**
 * Creates an in-memory ModelStore double holding `records`. `importFiles` and `importStream` hash
 * the file and take its GGUF facts from {@link modelRecordFixture}; they refuse files not starting
 * with `GGUF`.
 */
export function createMemoryStore(records: ModelRecord[]): MemoryStore {
  const byId = new Map(records.map((r) => [r.id, r]));
  const require = (id: string): ModelRecord => {
    const record = byId.get(id);
    if (record === undefined) {
      throw new LmtabError('model_not_found', `Model "${id}" is not in the store.`);
    }
    return record;
  };
  const put = (record: ModelRecord): Promise<ModelRecord> => {
    byId.set(record.id, record);
    return Promise.resolve(record);
  };
  const deleted: string[] = [];
  const bytes = new Map<string, Uint8Array<ArrayBuffer>>();
  let imports = 0;
  return {
    deleted,
    bytes,
    list: () => Promise.resolve([...byId.values()].sort((a, b) => b.createdAt - a.createdAt)),
    get: (id) => Promise.resolve(byId.get(id)),
    delete: (id) => {
      deleted.push(id);
      return Promise.resolve(byId.delete(id));
    },
    async *importFiles(file, options = {}): AsyncGenerator<StoreProgress> {
      const data = new Uint8Array(await file.arrayBuffer());
      if (new TextDecoder().decode(data.subarray(0, 4)) !== 'GGUF') {
        throw new LmtabError('invalid_request', `${file.name} is not a GGUF file.`);
      }
      yield { type: 'progress', file: file.name, bytes: data.length, total: data.length };
      const sha256 = new Sha256().update(data).digestHex();
      const id = options.id ?? file.name.replace(/\.gguf$/i, '');
      const fileId = `import-${++imports}`;
      bytes.set(fileId, data);
      const record = modelRecordFixture({
        id,
        source: { kind: 'import', fileName: file.name },
        files: [
          {
            fileId,
            name: file.name,
            size: data.length,
            sha256,
            chunkSize: data.length,
            chunks: 1,
            complete: true,
          },
        ],
        sizeBytes: data.length,
        digest: sha256,
      });
      yield { type: 'done', record: await put(record) };
    },
    async importStream(source, options) {
      const file = new File([await new Response(source).arrayBuffer()], options.fileName);
      let record: ModelRecord | undefined;
      for await (const event of this.importFiles(file, { id: options.id })) {
        if (event.type === 'done') record = event.record;
      }
      if (record === undefined) throw new Error('memory store: the import yielded no record');
      if (options.sha256 !== undefined && record.digest !== options.sha256) {
        byId.delete(options.id);
        throw new LmtabError(
          'invalid_request',
          `Digest mismatch: expected sha256:${options.sha256}, but the ${record.sizeBytes} bytes received hash to sha256:${record.digest}; nothing was kept.`,
        );
      }
      return record;
    },
    async compose(id, parts) {
      const weights = require(parts.weightsOf);
      let projector: StoredFile | undefined;
      if (parts.projector !== undefined && 'file' in parts.projector) {
        const { file } = parts.projector;
        const data = new Uint8Array(await file.arrayBuffer());
        const fileId = `import-${++imports}`;
        bytes.set(fileId, data);
        projector = {
          fileId,
          name: file.name,
          size: data.length,
          sha256: new Sha256().update(data).digestHex(),
          chunkSize: data.length,
          chunks: 1,
          complete: true,
        };
      } else if (parts.projector !== undefined) {
        projector = require(parts.projector.of).projector;
      }
      return put({
        id,
        source: { kind: 'import', fileName: parts.fileName ?? weights.files[0]?.name ?? id },
        files: weights.files,
        ...(projector === undefined ? {} : { projector }),
        gguf: weights.gguf,
        sizeBytes: weights.files.reduce((n, f) => n + f.size, projector?.size ?? 0),
        ...(weights.digest === undefined ? {} : { digest: weights.digest }),
        createdAt: weights.createdAt,
        ...(parts.customization === undefined ? {} : { customization: parts.customization }),
      });
    },
    createCustom: (id, customization) => put({ ...require(customization.from), id, customization }),
    copy: (source, destination) => put({ ...require(source), id: destination }),
    open(id) {
      const record = require(id);
      const blob = (fileId: string) =>
        new Blob([bytes.get(fileId) ?? new Uint8Array(0)] as BlobPart[]);
      return Promise.resolve({
        model: record.files.map((f) => blob(f.fileId)),
        ...(record.projector === undefined ? {} : { projector: blob(record.projector.fileId) }),
      });
    },
    touch: () => Promise.resolve(),
  };
}
