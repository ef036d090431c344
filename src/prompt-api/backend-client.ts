/**
 * The requests a page's `LanguageModel` sends to lmtab (its own origin's service worker, or a
 * relay): whether the model is stored, its context and what media it reads (`/api/show`), its
 * download (`/api/pull`, with `downloadprogress`), and token counts. Error answers become the
 * Prompt API's exceptions by their code.
 */
import { LmtabError, readErrorAnswer } from '../errors/index.js';
import { readNdjson } from '../streams/index.js';
import { domError, promptApiError, type PromptApiErrorOptions } from './prompt-api-error.js';
import type { ChatMessage, MediaKind } from './prompt-messages.js';

/** Where a page's `LanguageModel` sends its requests, and which model answers. */
export interface LanguageModelBackend {
  /** Origin (and optional path) of lmtab: the page's own origin, or a relay's URL. */
  baseUrl: string;
  /** The stored model (or a hub name `/api/pull` takes) that answers every session. */
  model: string;
  /** Headers sent with every request (a relay's `Authorization`, for example). */
  headers?: Record<string, string>;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
  /**
   * The most tokens one answer may have (`max_tokens`); default none: the answer ends where the
   * model ends it or the context is full, as Chrome's does.
   */
  maxTokens?: number;
}

/** The event `downloadprogress` carries: `loaded` from 0 to 1 of `total` 1. */
export class DownloadProgressEvent extends Event {
  readonly lengthComputable = true;
  readonly total = 1;
  constructor(readonly loaded: number) {
    super('downloadprogress');
  }
}

/** An error answer of lmtab's API as the exception the Prompt API throws, by its code. */
export async function failure(response: Response, options?: PromptApiErrorOptions): Promise<Error> {
  return promptApiError(await readErrorAnswer(response), options);
}

/** One `/api/pull` progress line. */
interface PullStatus {
  completed?: number;
  total?: number;
}

/** lmtab's API as one backend's `LanguageModel` uses it. */
export class PromptApiClient {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(readonly backend: LanguageModelBackend) {
    this.base = backend.baseUrl.replace(/\/+$/, '');
    this.doFetch = backend.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  }

  get model(): string {
    return this.backend.model;
  }

  post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    return this.doFetch(`${this.base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...this.backend.headers },
      body: JSON.stringify(body),
      signal,
    });
  }

  /** Whether the model is in lmtab's store (`/v1/models`). */
  async stored(): Promise<boolean> {
    const response = await this.doFetch(`${this.base}/v1/models`, {
      headers: this.backend.headers,
    });
    if (!response.ok) throw await failure(response);
    const list = (await response.json()) as { data?: { id: string }[] };
    return (list.data ?? []).some(
      (model) => model.id === this.model || `${model.id}:latest` === this.model,
    );
  }

  /** The model's context length, from `/api/show`. */
  async contextWindow(): Promise<number> {
    const response = await this.post('/api/show', { model: this.model });
    if (!response.ok) return Infinity;
    const show = (await response.json()) as { model_info?: Record<string, unknown> };
    const entry = Object.entries(show.model_info ?? {}).find(([key]) =>
      key.endsWith('.context_length'),
    );
    return typeof entry?.[1] === 'number' ? entry[1] : Infinity;
  }

  /** The first of `media` the model does not read, by its `/api/show` capabilities. */
  async unreadMedia(media: ReadonlySet<MediaKind>): Promise<MediaKind | undefined> {
    if (media.size === 0) return undefined;
    const response = await this.post('/api/show', { model: this.model });
    if (!response.ok) throw await failure(response);
    const { capabilities = [] } = (await response.json()) as { capabilities?: string[] };
    const reads = { image: capabilities.includes('vision'), audio: capabilities.includes('audio') };
    return [...media].find((kind) => !reads[kind]);
  }

  /** Loads the model (Ollama's load request), so that a first prompt does not wait for it. */
  async load(signal?: AbortSignal): Promise<void> {
    const loaded = await this.post('/api/generate', { model: this.model }, signal);
    if (!loaded.ok) throw await failure(loaded);
    await loaded.body?.cancel();
  }

  /** Downloads the model through `/api/pull`, telling `monitor` how far it is (0 to 1). */
  async pull(monitor: EventTarget, signal?: AbortSignal): Promise<void> {
    const response = await this.post('/api/pull', { model: this.model, stream: true }, signal);
    if (!response.ok || !response.body) throw await failure(response);
    monitor.dispatchEvent(new DownloadProgressEvent(0));
    let last = 0;
    try {
      for await (const status of readNdjson<PullStatus>(response.body)) {
        if (status.total && status.completed !== undefined) {
          // Below 1 until the pull ends: 1 means the model is ready.
          const loaded = Math.min(0.99, status.completed / status.total);
          if (loaded > last) monitor.dispatchEvent(new DownloadProgressEvent((last = loaded)));
        }
      }
    } catch (error) {
      // A failure after the pull began (an error line, a garbled one) is the spec's NetworkError.
      if (!(error instanceof LmtabError)) throw error;
      throw domError(
        'NetworkError',
        `The download failed (${error.code}): ${error.message}`,
        error,
      );
    }
    monitor.dispatchEvent(new DownloadProgressEvent(1));
  }

  /**
   * Tokens of `messages` as the model reads them (its tokenizer and chat template): Anthropic's
   * count for text; with images or audio, the prompt of a one-token chat (the media's tokens are
   * the projector's, which only the engine knows).
   */
  async countTokens(messages: ChatMessage[], signal?: AbortSignal): Promise<number> {
    if (messages.some((m) => typeof m.content !== 'string')) {
      const response = await this.post(
        '/v1/chat/completions',
        { model: this.model, messages, max_tokens: 1, stream: false },
        signal,
      );
      if (!response.ok) throw await failure(response);
      return ((await response.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    }
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
    const rest = messages.filter((m) => m.role !== 'system');
    const response = await this.post(
      '/v1/messages/count_tokens',
      {
        model: this.model,
        ...(system.length > 0 ? { system: system.join('\n') } : {}),
        messages: rest.length > 0 ? rest : [{ role: 'user', content: '' }],
      },
      signal,
    );
    if (!response.ok) throw await failure(response);
    return ((await response.json()) as { input_tokens: number }).input_tokens;
  }
}
