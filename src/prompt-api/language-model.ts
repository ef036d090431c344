/**
 * Chrome's Prompt API (`LanguageModel`, https://webmachinelearning.github.io/prompt-api/) backed by
 * lmtab: a page written for Chrome's built-in model runs, in any browser, on an LFM model served by
 * lmtab in that page (its service worker answers same-origin `/v1` and `/api`) or by a relay.
 *
 * Each session keeps its conversation here and sends it whole to `/v1/chat/completions` (llama.cpp's
 * prompt cache reuses the unchanged prefix): `prompt` and `promptStreaming` answer the next turn,
 * `responseConstraint` becomes a `json_schema` response format, `append` adds turns without an
 * answer, `measureContextUsage` counts tokens through `/v1/messages/count_tokens` (the model's own
 * tokenizer and template), and `create` downloads a model that is not stored yet through
 * `/api/pull`, reporting `downloadprogress` to its `monitor`. Images and audio go in as the chat's
 * `image_url` and `input_audio` parts (`media-values.ts`) for a model that reads them, declared in
 * `expectedInputs` as Chrome asks. Tools are not offered yet: `availability` answers `unavailable`
 * for them and `create` refuses them.
 */
import { readSseJson } from '../streams/index.js';
import { failure, PromptApiClient, type LanguageModelBackend } from './backend-client.js';
import { asPromptApiError, domError } from './prompt-api-error.js';
import {
  checkOptions,
  declaredMedia,
  toMessages,
  type ChatMessage,
  type LanguageModelCreateCoreOptions,
  type LanguageModelMessage,
  type LanguageModelPrompt,
  type MediaKind,
} from './prompt-messages.js';

export { DownloadProgressEvent } from './backend-client.js';
export type { LanguageModelBackend } from './backend-client.js';
export type { LanguageModelMessage, LanguageModelPrompt } from './prompt-messages.js';

export type Availability = 'unavailable' | 'downloadable' | 'downloading' | 'available';

/** What `monitor` receives: it fires `downloadprogress` while a model downloads. */
export interface CreateMonitor extends EventTarget {
  ondownloadprogress: ((event: Event) => void) | null;
}

export interface LanguageModelCreateOptions extends LanguageModelCreateCoreOptions {
  signal?: AbortSignal;
  monitor?: (monitor: CreateMonitor) => void;
  initialPrompts?: LanguageModelMessage[];
}

export interface LanguageModelPromptOptions {
  responseConstraint?: object;
  omitResponseConstraintInput?: boolean;
  signal?: AbortSignal;
}

/** The sampling defaults and limits `LanguageModel.params()` answers (LFM2's recommended sampling). */
const params = { defaultTopK: 40, maxTopK: 128, defaultTemperature: 0.3, maxTemperature: 2 };

/** One `/v1/chat/completions` stream chunk, as far as a session reads it. */
interface ChatChunk {
  choices?: { delta?: { content?: string | null } }[];
  usage?: { total_tokens?: number };
}

/** What a session starts from: a new one's (`create`) or the one it was cloned from. */
interface SessionState {
  client: PromptApiClient;
  messages: ChatMessage[];
  usage: number;
  contextWindow: number;
  topK: number;
  temperature: number;
  media: ReadonlySet<MediaKind>;
  signal?: AbortSignal;
}

/**
 * A session of the Prompt API: `prompt`, `promptStreaming`, `append`, `measureContextUsage`,
 * `clone` and `destroy`, answered through its client. The class a page sees adds `create`,
 * `availability` and `params` ({@link createLanguageModelClass}).
 */
class LanguageModelSession extends EventTarget {
  readonly #client: PromptApiClient;
  #messages: ChatMessage[];
  #usage: number;
  readonly #media: ReadonlySet<MediaKind>;
  #destroyed = false;
  #controller = new AbortController();
  readonly contextWindow: number;
  readonly topK: number;
  readonly temperature: number;
  oncontextoverflow: ((event: Event) => void) | null = null;
  onquotaoverflow: ((event: Event) => void) | null = null;

  protected constructor(state: SessionState) {
    super();
    this.#client = state.client;
    this.#messages = state.messages;
    this.#usage = state.usage;
    this.#media = state.media;
    this.contextWindow = state.contextWindow;
    this.topK = state.topK;
    this.temperature = state.temperature;
    state.signal?.addEventListener('abort', () => this.destroy(), { once: true });
  }

  /** Tokens the conversation holds (the deprecated name is `inputUsage`). */
  get contextUsage(): number {
    return this.#usage;
  }

  get inputUsage(): number {
    return this.#usage;
  }

  get inputQuota(): number {
    return this.contextWindow;
  }

  get samplingMode(): string {
    return 'default';
  }

  #check(signal?: AbortSignal): AbortSignal {
    if (this.#destroyed) throw domError('InvalidStateError', 'The session was destroyed');
    signal?.throwIfAborted();
    return signal ? AbortSignal.any([signal, this.#controller.signal]) : this.#controller.signal;
  }

  #request(turn: ChatMessage[], options: LanguageModelPromptOptions, stream: boolean) {
    const { maxTokens } = this.#client.backend;
    if (options.responseConstraint instanceof RegExp) {
      throw domError('NotSupportedError', 'A RegExp responseConstraint is not supported');
    }
    return {
      model: this.#client.model,
      messages: [...this.#messages, ...turn],
      temperature: this.temperature,
      top_k: this.topK,
      ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      ...(options.responseConstraint
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: { name: 'response', schema: options.responseConstraint, strict: true },
            },
          }
        : {}),
    };
  }

  /** Keeps a finished turn and the tokens the conversation now holds. */
  #record(turn: ChatMessage[], answer: string, usage: number | undefined): void {
    this.#messages.push(...turn, { role: 'assistant', content: answer });
    if (usage !== undefined) this.#usage = usage;
    if (this.#usage > this.contextWindow) {
      for (const type of ['contextoverflow', 'quotaoverflow'] as const) {
        const event = new Event(type);
        this[`on${type}`]?.(event);
        this.dispatchEvent(event);
      }
    }
  }

  async prompt(
    input: LanguageModelPrompt,
    options: LanguageModelPromptOptions = {},
  ): Promise<string> {
    const signal = this.#check(options.signal);
    const turn = await toMessages(input, this.#media);
    const response = await this.#client.post(
      '/v1/chat/completions',
      this.#request(turn, options, false),
      signal,
    );
    if (!response.ok) throw await failure(response, { quota: this.contextWindow });
    const body = (await response.json()) as {
      choices: { message: { content: string | null } }[];
      usage?: { total_tokens?: number };
    };
    const answer = body.choices[0]?.message.content ?? '';
    this.#record(turn, answer, body.usage?.total_tokens);
    return answer;
  }

  promptStreaming(
    input: LanguageModelPrompt,
    options: LanguageModelPromptOptions = {},
  ): ReadableStream<string> {
    // Cancelling the stream aborts its request: a read waiting on the next token ends at once.
    const stop = new AbortController();
    const signal = AbortSignal.any([this.#check(options.signal), stop.signal]);
    const turn = toMessages(input, this.#media);
    const quota = { quota: this.contextWindow };
    let chunks: AsyncGenerator<ChatChunk> | undefined;
    let answer = '';
    let usage: number | undefined;
    return new ReadableStream<string>({
      start: async () => {
        const request = this.#request(await turn, options, true);
        const response = await this.#client.post('/v1/chat/completions', request, signal);
        if (!response.ok || !response.body) throw await failure(response, quota);
        chunks = readSseJson<ChatChunk>(response.body);
      },
      pull: async (controller) => {
        try {
          for (;;) {
            const { value: chunk, done } = await chunks!.next();
            if (done) {
              this.#record(await turn, answer, usage);
              controller.close();
              return;
            }
            if (chunk.usage?.total_tokens !== undefined) usage = chunk.usage.total_tokens;
            const text = chunk.choices?.[0]?.delta?.content;
            if (text) {
              answer += text;
              controller.enqueue(text);
              return;
            }
          }
        } catch (error) {
          // An error event mid-answer carries its code, as an error answer does.
          throw asPromptApiError(error, quota);
        }
      },
      cancel: async () => {
        stop.abort();
        await chunks?.return(undefined).catch(() => undefined);
      },
    });
  }

  async append(input: LanguageModelPrompt, options: { signal?: AbortSignal } = {}) {
    const signal = this.#check(options.signal);
    const turn = await toMessages(input, this.#media);
    this.#messages.push(...turn);
    this.#usage = await this.#client.countTokens(this.#messages, signal);
  }

  async measureContextUsage(
    input: LanguageModelPrompt,
    options: LanguageModelPromptOptions = {},
  ): Promise<number> {
    const signal = this.#check(options.signal);
    return this.#client.countTokens(await toMessages(input, this.#media), signal);
  }

  measureInputUsage(input: LanguageModelPrompt, options: LanguageModelPromptOptions = {}) {
    return this.measureContextUsage(input, options);
  }

  async clone(options: { signal?: AbortSignal } = {}): Promise<this> {
    this.#check(options.signal);
    const Session = this.constructor as new (state: SessionState) => this;
    return new Session({
      client: this.#client,
      messages: this.#messages.map((m) => ({ ...m })),
      usage: this.#usage,
      contextWindow: this.contextWindow,
      topK: this.topK,
      temperature: this.temperature,
      media: this.#media,
      signal: options.signal,
    });
  }

  destroy(): void {
    this.#destroyed = true;
    this.#controller.abort(domError('AbortError', 'The session was destroyed'));
  }
}

/**
 * A `LanguageModel` class for a page: `LanguageModel.create()`, `.availability()`, `.params()`, and
 * its sessions, answered by `backend`.
 */
export function createLanguageModelClass(backend: LanguageModelBackend) {
  const client = new PromptApiClient(backend);
  return class LanguageModel extends LanguageModelSession {
    static async availability(options: LanguageModelCreateCoreOptions = {}): Promise<Availability> {
      try {
        checkOptions(options);
      } catch {
        return 'unavailable';
      }
      if (!(await client.stored())) return 'downloadable';
      return (await client.unreadMedia(declaredMedia(options))) === undefined
        ? 'available'
        : 'unavailable';
    }

    static params(): Promise<typeof params> {
      return Promise.resolve({ ...params });
    }

    static async create(options: LanguageModelCreateOptions = {}): Promise<LanguageModel> {
      checkOptions(options);
      options.signal?.throwIfAborted();
      const monitor = Object.assign(new EventTarget(), {
        ondownloadprogress: null as ((event: Event) => void) | null,
      });
      monitor.addEventListener('downloadprogress', (event) => monitor.ondownloadprogress?.(event));
      options.monitor?.(monitor);
      if (!(await client.stored())) await client.pull(monitor, options.signal);
      const media = declaredMedia(options);
      const unread = await client.unreadMedia(media);
      if (unread !== undefined) {
        throw domError(
          'NotSupportedError',
          `${client.model} does not read ${unread === 'image' ? 'images' : 'audio'}: it has no ${unread === 'image' ? 'vision' : 'audio'} projector`,
        );
      }
      const initial = await toMessages(options.initialPrompts ?? [], media);
      if (initial.some((m, i) => m.role === 'system' && i > 0)) {
        throw domError('TypeError', 'A system prompt must come first in initialPrompts');
      }
      await client.load(options.signal);
      const usage = initial.length > 0 ? await client.countTokens(initial, options.signal) : 0;
      return new LanguageModel({
        client,
        messages: initial,
        usage,
        contextWindow: await client.contextWindow(),
        topK: options.topK ?? params.defaultTopK,
        temperature: options.temperature ?? params.defaultTemperature,
        media,
        signal: options.signal,
      });
    }
  };
}

/** The class {@link createLanguageModelClass} makes. */
export type LanguageModelClass = ReturnType<typeof createLanguageModelClass>;

/**
 * Puts lmtab's `LanguageModel` on `globalThis` where the browser has none (or where `force` asks
 * for it over the browser's own); answers whether it did.
 */
export function installLanguageModel(backend: LanguageModelBackend, force = false): boolean {
  const scope = globalThis as { LanguageModel?: unknown };
  if (scope.LanguageModel !== undefined && !force) return false;
  scope.LanguageModel = createLanguageModelClass(backend);
  return true;
}
