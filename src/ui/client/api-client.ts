import type { EngineStatusBody } from '../../api/index.js';
import { readErrorAnswer } from '../../errors/index.js';
import { readSseJson } from '../../streams/index.js';

/** A `chat.completion.chunk` as the page reads it; its wire fields are the API's. */
export interface ChatCompletionChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: Array<{
        index: number;
        id?: string;
        type?: 'function';
        function?: { name?: string; arguments?: string };
      }> | null;
    };
    finish_reason?: string | null;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

/** A streamed `/v1/chat/completions` body: model and messages, and whatever else it sets. */
export interface StreamChatBody {
  model: string;
  messages: readonly unknown[];
  stream: true;
  stream_options?: { include_usage: boolean };
  max_tokens?: number;
}

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Default `globalThis.fetch` (the page's own `/v1` and `/api`, through its service worker). */
  fetch?: typeof globalThis.fetch;
}

/**
 * The page's one client of its own API. Every call fails with an LmtabError that keeps the API's
 * code and message together (`readErrorAnswer`), before or after a stream began.
 */
export interface ApiClient {
  /** Streams an answer's chunks from `/v1/chat/completions`. */
  streamChat(
    body: StreamChatBody,
    options?: { signal?: AbortSignal },
  ): AsyncGenerator<ChatCompletionChunk>;
  /** Loads a model (a generate request without a prompt, as Ollama's loads). */
  loadModel(model: string, options?: { signal?: AbortSignal }): Promise<void>;
  /** Unloads a model now (`keep_alive: 0`). */
  unloadModel(model: string): Promise<void>;
  /** Deletes a stored model (`DELETE /api/delete`). */
  deleteModel(model: string): Promise<void>;
  /** The compute path and the models in memory (`GET /api/lmtab/engine`). */
  engineStatus(options?: { signal?: AbortSignal }): Promise<EngineStatusBody>;
}

/** Creates an {@link ApiClient}. */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  // Called unbound: browsers refuse `fetch` called as a method of another object.
  const send = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const response = await (options.fetch ?? globalThis.fetch)(path, init);
    if (!response.ok) throw await readErrorAnswer(response);
    return response;
  };
  const post = (path: string, body: unknown, init: RequestInit = {}) =>
    send(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      ...init,
    });

  return {
    async *streamChat(body, callOptions = {}) {
      const response = await post('/v1/chat/completions', body, { signal: callOptions.signal });
      if (response.body === null) return;
      yield* readSseJson<ChatCompletionChunk>(response.body);
    },
    async loadModel(model, callOptions = {}) {
      await (await post('/api/generate', { model, stream: false }, callOptions)).json();
    },
    async unloadModel(model) {
      await (await post('/api/generate', { model, keep_alive: 0, stream: false })).json();
    },
    async deleteModel(model) {
      await post('/api/delete', { model }, { method: 'DELETE' });
    },
    async engineStatus(callOptions = {}) {
      const response = await send('/api/lmtab/engine', { signal: callOptions.signal });
      return (await response.json()) as EngineStatusBody;
    },
  };
}
