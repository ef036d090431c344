import { LmtabError, readErrorAnswer } from '../errors/index.js';
import { readNdjson } from '../streams/index.js';

/** One status of a long operation, as `/api/pull` and `/api/create` stream them. */
export interface ProgressStatus {
  status: string;
  /** The file being moved, `sha256:...`, when there is one. */
  digest?: string;
  /** Bytes in all, when known. */
  total?: number;
  /** Bytes done. */
  completed?: number;
}

/** Options of {@link createRelayClient}. */
export interface RelayClientOptions {
  /** The relay, e.g. `http://127.0.0.1:1234`. */
  baseUrl: URL;
  /** Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Sent as `Authorization: Bearer KEY` when the relay needs a key (`LMTAB_API_KEY`). */
  apiKey?: string;
}

/** What `/health` answers. */
export interface RelayHealth {
  status: string;
  version?: string;
  /** Engine tabs connected. */
  engines?: number;
}

/** A model as `/api/tags` lists it. */
export interface TagsModel {
  name: string;
  size: number;
  digest: string;
  modified_at: string;
  details?: { parameter_size?: string; quantization_level?: string; family?: string };
}

/** A model as `/api/ps` lists it. */
export interface RunningModel {
  name: string;
  size: number;
  size_vram: number;
  digest: string;
  expires_at: string;
  context_length?: number;
}

/** What `/api/show` answers. */
export interface ShowResponse {
  modelfile?: string;
  parameters?: string;
  template?: string;
  system?: string;
  license?: string;
  details?: { parameter_size?: string; quantization_level?: string; family?: string };
  model_info?: Record<string, string | number>;
  capabilities?: string[];
}

/** One chat message on the wire (`images` as base64). */
export interface WireMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  images?: string[];
}

/** One line of a streamed `/api/chat` answer. */
export interface ChatChunk {
  message?: {
    role: string;
    content: string;
    /** A thinking model's reasoning, apart from the answer. */
    thinking?: string;
  };
  done: boolean;
  done_reason?: string;
  eval_count?: number;
  eval_duration?: number;
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  total_duration?: number;
  load_duration?: number;
}

/** The body of `/api/create`. */
export interface CreateRequest {
  model: string;
  from?: string;
  files?: Record<string, string>;
  template?: string;
  system?: string;
  parameters?: Record<string, unknown>;
  messages?: { role: string; content: string }[];
  license?: string;
}

/** A small client of the relay's native `/api` (Ollama's API), as the CLI uses it. */
export interface RelayClient {
  readonly baseUrl: URL;
  /** `/health`, or undefined when nothing answers there. */
  health(options?: { timeoutMs?: number }): Promise<RelayHealth | undefined>;
  tags(): Promise<TagsModel[]>;
  ps(): Promise<RunningModel[]>;
  show(model: string): Promise<ShowResponse>;
  /** Whether a model is stored (`/api/show` answers 200 rather than 404). */
  has(model: string): Promise<boolean>;
  delete(model: string): Promise<void>;
  copy(source: string, destination: string): Promise<void>;
  /** Unloads a model now (`/api/generate` with `keep_alive: 0`). */
  unload(model: string): Promise<void>;
  chat(
    body: {
      model: string;
      messages: WireMessage[];
      options?: Record<string, unknown>;
      keep_alive?: string | number;
      /** `json`, or a JSON Schema the answer must validate against. */
      format?: 'json' | Record<string, unknown>;
      /** Whether a thinking model thinks first; the model's default when absent. */
      think?: boolean;
    },
    options?: { signal?: AbortSignal },
  ): AsyncIterable<ChatChunk>;
  pull(model: string, options?: { signal?: AbortSignal }): AsyncIterable<ProgressStatus>;
  create(body: CreateRequest): AsyncIterable<ProgressStatus>;
  hasBlob(digest: string): Promise<boolean>;
  /** Uploads a model file's bytes; `size` is sent as Content-Length. */
  uploadBlob(digest: string, body: ReadableStream<Uint8Array>, size: number): Promise<void>;
}

/** Creates a {@link RelayClient}; failures are LmtabErrors carrying the relay's own code and message. */
export function createRelayClient(options: RelayClientOptions): RelayClient {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const base = options.baseUrl;
  const url = (path: string) =>
    new URL(path.replace(/^\//, ''), `${base.href.replace(/\/$/, '')}/`);

  async function send(path: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      const headers = new Headers(init.headers);
      if (options.apiKey) headers.set('Authorization', `Bearer ${options.apiKey}`);
      response = await fetchImpl(url(path), { ...init, headers });
    } catch (error) {
      if (init.signal?.aborted === true) throw error;
      throw new LmtabError(
        'relay_unreachable',
        `Could not reach the lmtab relay at ${base.origin}: ${reason(error)}.`,
        { cause: error },
      );
    }
    if (response.ok) return response;
    // The relay states the code (header or body); it is never guessed from the status.
    throw await readErrorAnswer(response);
  }

  const json = async <T>(path: string, body?: unknown, method = 'POST'): Promise<T> => {
    const response = await send(
      path,
      body === undefined
        ? { method: 'GET' }
        : { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
    );
    return (await response.json()) as T;
  };

  async function* stream<T>(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<T> {
    const response = await send(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal === undefined ? {} : { signal }),
    });
    if (response.body === null) return;
    yield* readNdjson<T>(response.body);
  }

  return {
    baseUrl: base,
    async health(healthOptions = {}) {
      try {
        const response = await fetchImpl(url('/health'), {
          signal: AbortSignal.timeout(healthOptions.timeoutMs ?? 2000),
        });
        if (!response.ok) return undefined;
        return (await response.json()) as RelayHealth;
      } catch {
        return undefined;
      }
    },
    tags: async () => (await json<{ models?: TagsModel[] }>('/api/tags')).models ?? [],
    ps: async () => (await json<{ models?: RunningModel[] }>('/api/ps')).models ?? [],
    show: (model) => json<ShowResponse>('/api/show', { model }),
    async has(model) {
      try {
        await json('/api/show', { model });
        return true;
      } catch (error) {
        if (error instanceof LmtabError && error.code === 'model_not_found') return false;
        throw error;
      }
    },
    async delete(model) {
      await send('/api/delete', {
        method: 'DELETE',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model }),
      });
    },
    async copy(source, destination) {
      await send('/api/copy', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ source, destination }),
      });
    },
    async unload(model) {
      await json('/api/generate', { model, keep_alive: 0 });
    },
    chat: (body, chatOptions = {}) =>
      stream<ChatChunk>('/api/chat', { ...body, stream: true }, chatOptions.signal),
    pull: (model, pullOptions = {}) =>
      stream<ProgressStatus>('/api/pull', { model, stream: true }, pullOptions.signal),
    create: (body) => stream<ProgressStatus>('/api/create', { ...body, stream: true }),
    async hasBlob(digest) {
      try {
        await send(`/api/blobs/${digest}`, { method: 'HEAD' });
        return true;
      } catch (error) {
        if (error instanceof LmtabError && error.code === 'not_found') return false;
        throw error;
      }
    },
    async uploadBlob(digest, body, size) {
      await send(`/api/blobs/${digest}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) },
        body,
        duplex: 'half',
      } as RequestInit);
    },
  };
}

function reason(error: unknown): string {
  const cause = error instanceof Error ? (error.cause ?? error) : error;
  if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string')
    return cause.code;
  return cause instanceof Error ? cause.message : String(cause);
}
