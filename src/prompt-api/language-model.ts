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
import { LmtabError, readErrorAnswer } from '../errors/index.js';
import { readNdjson, readSseJson } from '../streams/index.js';
import { audioPart, imagePart, MediaValueError, type MediaPart } from './media-values.js';
import { asPromptApiError, domError, promptApiError } from './prompt-api-error.js';
import type { PromptApiErrorOptions } from './prompt-api-error.js';

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

export type Availability = 'unavailable' | 'downloadable' | 'downloading' | 'available';
type Role = 'system' | 'user' | 'assistant';

interface MessageContent {
  type: 'text' | 'image' | 'audio' | 'tool-call' | 'tool-response';
  value: unknown;
}

/** One message of a prompt, as the Prompt API takes it. */
export interface LanguageModelMessage {
  role: Role;
  content: string | MessageContent[];
  prefix?: boolean;
}

export type LanguageModelPrompt = string | LanguageModelMessage[];

interface Expected {
  type: MessageContent['type'];
  languages?: string[];
}

export interface LanguageModelCreateCoreOptions {
  topK?: number;
  temperature?: number;
  expectedInputs?: Expected[];
  expectedOutputs?: Expected[];
  tools?: unknown[];
}

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

/** One chat message as `/v1/chat/completions` takes it: text, or text and media parts. */
interface ChatMessage {
  role: Role;
  content: string | ({ type: 'text'; text: string } | MediaPart)[];
}

/** The media a session was created to take (its `expectedInputs` besides text). */
type MediaKind = 'image' | 'audio';

/** The sampling defaults and limits `LanguageModel.params()` answers (LFM2's recommended sampling). */
const params = { defaultTopK: 40, maxTopK: 128, defaultTemperature: 0.3, maxTemperature: 2 };

/** The event `downloadprogress` carries: `loaded` from 0 to 1 of `total` 1. */
export class DownloadProgressEvent extends Event {
  readonly lengthComputable = true;
  readonly total = 1;
  constructor(readonly loaded: number) {
    super('downloadprogress');
  }
}

/**
 * A prompt's messages as chat messages: text, and the images and audio the session declared in
 * `expectedInputs` (others are a NotSupportedError, as in Chrome); tool turns are refused.
 */
async function toMessages(
  input: LanguageModelPrompt,
  media: ReadonlySet<MediaKind>,
): Promise<ChatMessage[]> {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) return [{ role: 'user', content: String(input) }];
  return Promise.all(
    input.map(async (message): Promise<ChatMessage> => {
      if (message.prefix === true) {
        throw domError('NotSupportedError', "lmtab's LanguageModel does not continue a prefix yet");
      }
      if (typeof message.content === 'string') {
        return { role: message.role, content: message.content };
      }
      const parts = await Promise.all(message.content.map((part) => toPart(part, media)));
      if (parts.every((part) => part.type === 'text')) {
        return { role: message.role, content: parts.map((part) => part.text).join('') };
      }
      return { role: message.role, content: parts };
    }),
  );
}

async function toPart(
  part: MessageContent,
  media: ReadonlySet<MediaKind>,
): Promise<{ type: 'text'; text: string } | MediaPart> {
  if (part.type === 'text') return { type: 'text', text: String(part.value) };
  if (part.type !== 'image' && part.type !== 'audio') {
    throw domError(
      'NotSupportedError',
      `lmtab's LanguageModel does not run tools yet; received ${part.type}`,
    );
  }
  if (!media.has(part.type)) {
    throw domError(
      'NotSupportedError',
      `The session was not created for ${part.type} input: declare it in expectedInputs`,
    );
  }
  try {
    return await (part.type === 'image' ? imagePart(part.value) : audioPart(part.value));
  } catch (error) {
    if (error instanceof MediaValueError) throw domError(error.name, error.message);
    throw error;
  }
}

/** The media kinds `expectedInputs` declares. */
function declaredMedia(options: LanguageModelCreateCoreOptions): Set<MediaKind> {
  return new Set(
    (options.expectedInputs ?? [])
      .map((expected) => expected.type)
      .filter((type): type is MediaKind => type === 'image' || type === 'audio'),
  );
}

function checkOptions(options: LanguageModelCreateCoreOptions): void {
  const other = [
    ...(options.expectedInputs ?? []).filter(
      (expected) => !['text', 'image', 'audio'].includes(expected.type),
    ),
    ...(options.expectedOutputs ?? []).filter((expected) => expected.type !== 'text'),
  ][0];
  if (other) {
    throw domError(
      'NotSupportedError',
      `lmtab's LanguageModel takes text, images and audio and gives text; ${other.type} was asked`,
    );
  }
  if ((options.tools ?? []).length > 0) {
    throw domError('NotSupportedError', "lmtab's LanguageModel does not run tools yet");
  }
  if ((options.topK === undefined) !== (options.temperature === undefined)) {
    throw domError('NotSupportedError', 'topK and temperature must be given together');
  }
  if (options.topK !== undefined && !(options.topK >= 1)) {
    throw domError('NotSupportedError', `topK must be at least 1; received ${options.topK}`);
  }
}

/** An error answer of lmtab's API as the exception the Prompt API throws, by its code. */
async function failure(response: Response, options?: PromptApiErrorOptions): Promise<Error> {
  return promptApiError(await readErrorAnswer(response), options);
}

/** One `/api/pull` progress line. */
interface PullStatus {
  completed?: number;
  total?: number;
}

/** One `/v1/chat/completions` stream chunk, as far as a session reads it. */
interface ChatChunk {
  choices?: { delta?: { content?: string | null } }[];
  usage?: { total_tokens?: number };
}

/**
 * A `LanguageModel` class for a page: `LanguageModel.create()`, `.availability()`, `.params()`, and
 * sessions with `prompt`, `promptStreaming`, `append`, `measureContextUsage`, `clone` and
 * `destroy`, answered by `backend`.
 */
export function createLanguageModelClass(backend: LanguageModelBackend) {
  const base = backend.baseUrl.replace(/\/+$/, '');
  const doFetch = backend.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    doFetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...backend.headers },
      body: JSON.stringify(body),
      signal,
    });

  async function stored(): Promise<boolean> {
    const response = await doFetch(`${base}/v1/models`, { headers: backend.headers });
    if (!response.ok) throw await failure(response);
    const list = (await response.json()) as { data?: { id: string }[] };
    return (list.data ?? []).some(
      (model) => model.id === backend.model || `${model.id}:latest` === backend.model,
    );
  }

  /** The model's context length, from `/api/show`. */
  async function contextWindow(): Promise<number> {
    const response = await post('/api/show', { model: backend.model });
    if (!response.ok) return Infinity;
    const show = (await response.json()) as { model_info?: Record<string, unknown> };
    const entry = Object.entries(show.model_info ?? {}).find(([key]) =>
      key.endsWith('.context_length'),
    );
    return typeof entry?.[1] === 'number' ? entry[1] : Infinity;
  }

  /** The first of `media` the model does not read, by its `/api/show` capabilities. */
  async function unreadMedia(media: ReadonlySet<MediaKind>): Promise<MediaKind | undefined> {
    if (media.size === 0) return undefined;
    const response = await post('/api/show', { model: backend.model });
    if (!response.ok) throw await failure(response);
    const { capabilities = [] } = (await response.json()) as { capabilities?: string[] };
    const reads = { image: capabilities.includes('vision'), audio: capabilities.includes('audio') };
    return [...media].find((kind) => !reads[kind]);
  }

  /** Downloads the model through `/api/pull`, telling `monitor` how far it is (0 to 1). */
  async function pull(monitor: EventTarget, signal?: AbortSignal): Promise<void> {
    const response = await post('/api/pull', { model: backend.model, stream: true }, signal);
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
  async function countTokens(messages: ChatMessage[], signal?: AbortSignal): Promise<number> {
    if (messages.some((m) => typeof m.content !== 'string')) {
      const response = await post(
        '/v1/chat/completions',
        { model: backend.model, messages, max_tokens: 1, stream: false },
        signal,
      );
      if (!response.ok) throw await failure(response);
      return ((await response.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    }
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
    const rest = messages.filter((m) => m.role !== 'system');
    const response = await post(
      '/v1/messages/count_tokens',
      {
        model: backend.model,
        ...(system.length > 0 ? { system: system.join('\n') } : {}),
        messages: rest.length > 0 ? rest : [{ role: 'user', content: '' }],
      },
      signal,
    );
    if (!response.ok) throw await failure(response);
    return ((await response.json()) as { input_tokens: number }).input_tokens;
  }

  class LanguageModel extends EventTarget {
    #messages: ChatMessage[];
    #usage: number;
    readonly #media: ReadonlySet<MediaKind>;
    #destroyed = false;
    #controller = new AbortController();
    oncontextoverflow: ((event: Event) => void) | null = null;
    onquotaoverflow: ((event: Event) => void) | null = null;

    private constructor(
      messages: ChatMessage[],
      usage: number,
      readonly contextWindow: number,
      readonly topK: number,
      readonly temperature: number,
      media: ReadonlySet<MediaKind>,
      signal?: AbortSignal,
    ) {
      super();
      this.#media = media;
      this.#messages = messages;
      this.#usage = usage;
      signal?.addEventListener('abort', () => this.destroy(), { once: true });
    }

    static async availability(options: LanguageModelCreateCoreOptions = {}): Promise<Availability> {
      try {
        checkOptions(options);
      } catch {
        return 'unavailable';
      }
      if (!(await stored())) return 'downloadable';
      return (await unreadMedia(declaredMedia(options))) === undefined
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
      if (!(await stored())) await pull(monitor, options.signal);
      const media = declaredMedia(options);
      const unread = await unreadMedia(media);
      if (unread !== undefined) {
        throw domError(
          'NotSupportedError',
          `${backend.model} does not read ${unread === 'image' ? 'images' : 'audio'}: it has no ${unread === 'image' ? 'vision' : 'audio'} projector`,
        );
      }
      const initial = await toMessages(options.initialPrompts ?? [], media);
      if (initial.some((m, i) => m.role === 'system' && i > 0)) {
        throw domError('TypeError', 'A system prompt must come first in initialPrompts');
      }
      // Loads the model (Ollama's load request), so the first prompt does not wait for it.
      const loaded = await post('/api/generate', { model: backend.model }, options.signal);
      if (!loaded.ok) throw await failure(loaded);
      await loaded.body?.cancel();
      const usage = initial.length > 0 ? await countTokens(initial, options.signal) : 0;
      return new LanguageModel(
        initial,
        usage,
        await contextWindow(),
        options.topK ?? params.defaultTopK,
        options.temperature ?? params.defaultTemperature,
        media,
        options.signal,
      );
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
      if (options.responseConstraint instanceof RegExp) {
        throw domError('NotSupportedError', 'A RegExp responseConstraint is not supported');
      }
      return {
        model: backend.model,
        messages: [...this.#messages, ...turn],
        temperature: this.temperature,
        top_k: this.topK,
        ...(backend.maxTokens !== undefined ? { max_tokens: backend.maxTokens } : {}),
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
      const response = await post(
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
          const response = await post('/v1/chat/completions', request, signal);
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
      this.#usage = await countTokens(this.#messages, signal);
    }

    async measureContextUsage(
      input: LanguageModelPrompt,
      options: LanguageModelPromptOptions = {},
    ): Promise<number> {
      const signal = this.#check(options.signal);
      return countTokens(await toMessages(input, this.#media), signal);
    }

    measureInputUsage(input: LanguageModelPrompt, options: LanguageModelPromptOptions = {}) {
      return this.measureContextUsage(input, options);
    }

    async clone(options: { signal?: AbortSignal } = {}): Promise<LanguageModel> {
      this.#check(options.signal);
      return new LanguageModel(
        this.#messages.map((m) => ({ ...m })),
        this.#usage,
        this.contextWindow,
        this.topK,
        this.temperature,
        this.#media,
        options.signal,
      );
    }

    destroy(): void {
      this.#destroyed = true;
      this.#controller.abort(domError('AbortError', 'The session was destroyed'));
    }
  }
  return LanguageModel;
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
