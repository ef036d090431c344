import { LmtabError } from '../../errors/index.js';
import type { ChunkWriter } from '../idb/idb-model-store.js';
import type { GgufSummary, MlcSource, ModelRecord, StoredFile } from '../model-record.js';
import { isComplete } from '../model-record.js';
import type { ModelStore, StoreProgress } from '../store.js';
import { ensureSpace } from '../storage-space.js';

import { defaultChunkSize } from '../idb/idb-model-store.js';

/** An MLC model to download: an entry of web-llm's catalog, in lmtab's words. */
export type MlcModelSpec = Omit<MlcSource, 'kind' | 'libFile' | 'manifestFile'> & {
  /** `mlc-model-manifest.json` (relative to the model URL) for models web-llm loads through one. */
  manifest?: string;
};

/** Options of {@link downloadMlcModel}. */
export interface DownloadMlcOptions {
  signal?: AbortSignal;
  /** Fetches the artifacts; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Bytes per stored chunk; default {@link defaultChunkSize}. */
  chunkSize?: number;
  /** Clock for timestamps; default `Date.now`. */
  clock?: () => number;
}

/** What web-llm reads of `mlc-chat-config.json`, and what the store shows of it. */
interface MlcChatConfig {
  tokenizer_files?: string[];
  model_type?: string;
  quantization?: string;
  context_window_size?: number;
  model_config?: { hidden_size?: number; num_hidden_layers?: number };
}

/** What `tensor-cache.json` lists: the weight shards. */
interface TensorCache {
  metadata?: { ParamSize?: number };
  records: { dataPath: string; nbytes: number }[];
}

/** One artifact to store. */
interface PlannedFile {
  name: string;
  url: string;
  /** Size when known before the download (weight shards); checked against what arrives. */
  size?: number;
  /** Bytes already fetched (the small JSON files read to plan the download). */
  bytes?: Uint8Array;
}

const progressStep = 256 * 1024;

/** A Hugging Face model URL as web-llm resolves it: `.../resolve/main/` appended when missing. */
export function mlcModelBaseUrl(modelUrl: string): string {
  let url = modelUrl.endsWith('/') ? modelUrl : `${modelUrl}/`;
  if (!/.+\/resolve\/.+\//.test(url)) url += 'resolve/main/';
  return new URL(url).href;
}

function failed(url: string, detail: string, cause?: unknown): LmtabError {
  return new LmtabError('download_failed', `Downloading ${url} failed: ${detail}`, { cause });
}

async function fetchOk(
  fetcher: typeof globalThis.fetch,
  url: string,
  signal?: AbortSignal,
): Promise<Response> {
  let response: Response;
  try {
    // The store keeps the bytes: no second copy in the browser's HTTP cache.
    response = await fetcher(url, { signal, cache: 'no-store' });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw failed(url, error instanceof Error ? error.message : String(error), error);
  }
  if (!response.ok) {
    throw failed(url, `expected status 200, got ${response.status} ${response.statusText}`.trim());
  }
  return response;
}

async function fetchJson<T>(
  fetcher: typeof globalThis.fetch,
  url: string,
  signal?: AbortSignal,
): Promise<{ value: T; bytes: Uint8Array }> {
  const bytes = new Uint8Array(await (await fetchOk(fetcher, url, signal)).arrayBuffer());
  try {
    return { value: JSON.parse(new TextDecoder().decode(bytes)) as T, bytes };
  } catch (error) {
    throw failed(url, `expected JSON, got ${bytes.length} bytes that do not parse`, error);
  }
}

/** The tokenizer file web-llm loads: `tokenizer.json`, else `tokenizer.model`. */
function tokenizerFile(config: MlcChatConfig, url: string): string {
  const files = config.tokenizer_files ?? [];
  if (files.includes('tokenizer.json')) return 'tokenizer.json';
  if (files.includes('tokenizer.model')) return 'tokenizer.model';
  throw failed(
    url,
    `expected tokenizer_files to name tokenizer.json or tokenizer.model, got ${JSON.stringify(files)}`,
  );
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

function summaryOf(spec: MlcModelSpec, config: MlcChatConfig, cache: TensorCache): GgufSummary {
  const contextLength = spec.overrides?.context_window_size ?? config.context_window_size;
  const summary: GgufSummary = {
    architecture: config.model_type ?? 'mlc',
    name: spec.catalogId,
    parameterCount: cache.metadata?.ParamSize ?? 0,
    quantization: config.quantization ?? 'unknown',
    fileKind: 'model',
  };
  const optional = {
    contextLength: typeof contextLength === 'number' ? contextLength : undefined,
    embeddingLength: config.model_config?.hidden_size,
    blockCount: config.model_config?.num_hidden_layers,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(summary, { [key]: value });
  }
  return summary;
}

/**
 * Downloads an MLC model (web-llm's artifacts: config, tokenizer, weight shards, compiled model
 * library) into the store, as web-llm itself would fetch them, yielding progress per file. The
 * record is saved as files complete, so a cut download resumes with the first unfinished file.
 * web-llm later loads the model from the store (see `serveStoredFile`).
 */
export async function* downloadMlcModel(
  store: Pick<ModelStore, 'get'> & Pick<ChunkWriter, 'writeChunk' | 'putRecord'>,
  spec: MlcModelSpec,
  options: DownloadMlcOptions = {},
): AsyncGenerator<StoreProgress> {
  const fetcher: typeof globalThis.fetch =
    options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const { signal } = options;
  const chunkSize = options.chunkSize ?? defaultChunkSize;
  const clock = options.clock ?? Date.now;
  const id = spec.catalogId;
  const existing = await store.get(id);
  if (existing && isComplete(existing)) {
    yield { type: 'done', record: existing };
    return;
  }

  const base = mlcModelBaseUrl(spec.modelUrl);
  const planned: PlannedFile[] = [];
  let configName = 'mlc-chat-config.json';
  let tensorCacheName = 'tensor-cache.json';
  if (spec.manifest !== undefined) {
    const url = new URL(spec.manifest, base).href;
    const manifest = await fetchJson<{ chat_config?: string; weights?: { manifest?: string } }>(
      fetcher,
      url,
      signal,
    );
    planned.push({ name: spec.manifest, url, bytes: manifest.bytes });
    configName = manifest.value.chat_config ?? configName;
    tensorCacheName = manifest.value.weights?.manifest ?? tensorCacheName;
  }
  const configUrl = new URL(configName, base).href;
  const config = await fetchJson<MlcChatConfig>(fetcher, configUrl, signal);
  planned.push({ name: configName, url: configUrl, bytes: config.bytes });
  const cacheUrl = new URL(tensorCacheName, base).href;
  const cache = await fetchJson<TensorCache>(fetcher, cacheUrl, signal);
  if (!Array.isArray(cache.value.records)) {
    throw failed(cacheUrl, 'expected a "records" list of weight shards, got none');
  }
  planned.push({ name: tensorCacheName, url: cacheUrl, bytes: cache.bytes });
  const tokenizer = tokenizerFile(config.value, configUrl);
  planned.push({ name: tokenizer, url: new URL(tokenizer, base).href });
  const shardFolder = folderOf(tensorCacheName);
  for (const shard of cache.value.records) {
    const name = shardFolder + shard.dataPath;
    planned.push({ name, url: new URL(name, base).href, size: shard.nbytes });
  }
  const libFile = `lib/${new URL(spec.modelLibUrl).pathname.split('/').pop() ?? 'model.wasm'}`;
  planned.push({ name: libFile, url: spec.modelLibUrl });

  // Files of an earlier, cut download of the same model are kept when complete.
  const kept = new Map((existing?.files ?? []).map((file) => [file.name, file]));
  const files: StoredFile[] = planned.map((file) => {
    const previous = kept.get(file.name);
    return {
      fileId: previous?.fileId ?? crypto.randomUUID(),
      name: file.name,
      size: file.bytes?.length ?? file.size ?? 0,
      chunkSize,
      chunks: previous?.complete ? previous.chunks : 0,
      complete:
        previous?.complete === true && (file.size === undefined || previous.size === file.size),
    };
  });
  const remaining = planned.reduce(
    (sum, file, i) => sum + (files[i].complete ? 0 : (file.bytes?.length ?? file.size ?? 0)),
    0,
  );
  await ensureSpace(remaining);
  const { manifest, ...rest } = spec;
  const source: MlcSource = {
    kind: 'mlc',
    ...rest,
    libFile,
    ...(manifest !== undefined ? { manifestFile: manifest } : {}),
  };
  const record: ModelRecord = {
    id,
    format: 'mlc',
    source,
    files,
    gguf: summaryOf(spec, config.value, cache.value),
    sizeBytes: files.reduce((sum, file) => sum + file.size, 0),
    createdAt: existing?.createdAt ?? clock(),
  };
  await store.putRecord(record);

  for (const [i, plan] of planned.entries()) {
    const file = files[i];
    if (file.complete) continue;
    signal?.throwIfAborted();
    file.chunks = 0;
    const body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> = plan.bytes
      ? [plan.bytes]
      : readBody(await fetchOk(fetcher, plan.url, signal), plan.url);
    const total = plan.bytes?.length ?? plan.size ?? 0;
    const chunks = new ChunkBuffer(chunkSize);
    let received = 0;
    let reported = 0;
    for await (const piece of body) {
      for (const chunk of chunks.add(piece)) {
        await store.writeChunk(file, file.chunks, new Blob([chunk]));
        file.chunks += 1;
      }
      received += piece.length;
      // Progress as bytes arrive, at most every 256 KiB, so slow links still show movement.
      if (received - reported >= progressStep || received === total) {
        reported = received;
        yield {
          type: 'progress',
          file: plan.name,
          bytes: received,
          total: Math.max(total, received),
        };
      }
    }
    const last = chunks.rest();
    if (last) {
      await store.writeChunk(file, file.chunks, new Blob([last]));
      file.chunks += 1;
    }
    if (reported !== received) {
      yield {
        type: 'progress',
        file: plan.name,
        bytes: received,
        total: Math.max(total, received),
      };
    }
    if (plan.size !== undefined && received !== plan.size) {
      throw failed(plan.url, `expected ${plan.size} bytes (tensor-cache.json), got ${received}`);
    }
    file.size = received;
    file.complete = true;
    record.sizeBytes = files.reduce((sum, f) => sum + f.size, 0);
    await store.putRecord(record);
  }
  yield { type: 'done', record };
}

async function* readBody(response: Response, url: string): AsyncGenerator<Uint8Array> {
  if (!response.body) throw failed(url, 'the response has no body');
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Stops the transfer when the download is aborted or fails part-way.
    await reader.cancel().catch(() => undefined);
  }
}

/** Regroups arriving bytes into pieces of exactly `size` bytes; `rest()` gives the shorter tail. */
class ChunkBuffer {
  private buffer: Uint8Array<ArrayBuffer>;
  private filled = 0;

  constructor(private readonly size: number) {
    this.buffer = new Uint8Array(size);
  }

  /** The whole chunks completed by `piece`. */
  add(piece: Uint8Array): Uint8Array<ArrayBuffer>[] {
    const done: Uint8Array<ArrayBuffer>[] = [];
    let offset = 0;
    while (offset < piece.length) {
      const take = Math.min(this.size - this.filled, piece.length - offset);
      this.buffer.set(piece.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.size) {
        done.push(this.buffer);
        this.buffer = new Uint8Array(this.size);
        this.filled = 0;
      }
    }
    return done;
  }

  /** The bytes of an unfinished last chunk, if any. */
  rest(): Uint8Array<ArrayBuffer> | undefined {
    return this.filled > 0 ? this.buffer.subarray(0, this.filled) : undefined;
  }
}
