import type {
  ChatMessage,
  ContentPart,
  Engine,
  GenerateRequest,
  ToolCall,
} from '../../engine/index.js';
import { LmtabError, errorTable, toLmtabError } from '../../errors/index.js';
import { assertToolSchemas } from '../assert-tool-schemas.js';
import { newId } from '../new-id.js';
import { parseWire } from '../parse-wire.js';
import { startEvents, startGeneration } from '../start-generation.js';
import { wavFile } from '../wav-file.js';
import {
  clientEventSchema,
  type ClientEvent,
  type ClientItem,
  type RealtimeFunctionTool,
  type RealtimeToolChoice,
  type ResponseParams,
  type ServerVad,
  type SessionUpdate,
  type TranscriptionConfig,
} from './realtime-events.js';
import {
  decodePcm16,
  encodePcm16,
  realtimeRate,
  resamplePcm16,
  VoiceActivity,
} from './realtime-audio.js';

/** A server event: its `type` and fields, in OpenAI's Realtime shapes. */
export type ServerEvent = { type: string } & Record<string, unknown>;

/** Options of {@link RealtimeSession}. */
export interface RealtimeSessionOptions {
  engine: Engine;
  /** The stored model's id. */
  model: string;
  /** What the model takes and makes, read from its projector. */
  media: { hears: boolean; speaks: boolean };
  /** Receives each server event, in order. */
  emit: (event: ServerEvent) => void;
  /** Most uncommitted input audio, in bytes of 16-bit PCM. */
  maxBufferBytes: number;
}

/** The session's settings, as `session.created` and `session.updated` show them. */
interface SessionState {
  instructions: string;
  outputModalities: ['text'] | ['audio'];
  maxOutputTokens: number | 'inf';
  tools: RealtimeFunctionTool[];
  toolChoice: RealtimeToolChoice;
  turnDetection: (Required<Omit<ServerVad, 'idle_timeout_ms'>> & { idle_timeout_ms: null }) | null;
  transcription: TranscriptionConfig;
  voice: string | { id: string } | undefined;
}

/** One item of the conversation, as clients see it, and the audio of a user message. */
interface StoredItem {
  item: Record<string, unknown> & { id: string; type: string };
  /** 24 kHz samples of each `input_audio` part, by content index. */
  audio: Map<number, Int16Array>;
}

/** OpenAI's default server VAD. */
const defaultVad = {
  type: 'server_vad' as const,
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 500,
  create_response: true,
  interrupt_response: true,
  idle_timeout_ms: null,
};

/** Less input than this is not a turn (OpenAI's `input_audio_buffer_commit_empty`). */
const minimumCommitMs = 100;

/**
 * One Realtime session over a model that hears: the conversation, the input audio buffer, turn
 * detection and the answers. Each answer is a chat turn on the engine with the conversation so far
 * (committed audio goes in as `input_audio`), streamed as `response.output_text.delta` (or, for a
 * model that speaks, its transcript and `response.output_audio.delta`), with tool calls as
 * `function_call` items. Client events are handled in order; one answer runs at a time.
 */
export class RealtimeSession {
  readonly id = newId('sess_');
  readonly #options: RealtimeSessionOptions;
  readonly #state: SessionState;
  readonly #items: StoredItem[] = [];
  #buffer: Int16Array[] = [];
  #bufferSamples = 0;
  /** Samples appended since the session began (VAD positions count from there). */
  #heardSamples = 0;
  #vad: VoiceActivity | undefined;
  #response: { id: string; controller: AbortController; done: Promise<void> } | undefined;
  #closed = false;
  /** Work in order: transcriptions and answers take the engine one after the other. */
  #queue: Promise<void> = Promise.resolve();

  constructor(options: RealtimeSessionOptions) {
    this.#options = options;
    this.#state = {
      instructions: '',
      outputModalities: options.media.speaks ? ['audio'] : ['text'],
      maxOutputTokens: 'inf',
      tools: [],
      toolChoice: 'auto',
      turnDetection: { ...defaultVad },
      transcription: null,
      voice: undefined,
    };
    this.#vad = this.#newVad();
  }

  /** Sends `session.created`; call once, first. */
  start(): void {
    this.#emit({ type: 'session.created', session: this.#describe() });
  }

  /** Handles one client event (a parsed JSON line); a bad one is answered with an `error` event. */
  handle(value: unknown): void {
    if (this.#closed) return;
    const eventId =
      typeof value === 'object' && value !== null && 'event_id' in value
        ? String((value as { event_id: unknown }).event_id)
        : undefined;
    try {
      this.#dispatch(parseWire(clientEventSchema, value));
    } catch (error) {
      this.#error(toLmtabError(error, 'invalid_request'), eventId);
    }
  }

  /**
   * Ends the session. With `finish`, what the client asked for before it stopped sending is
   * answered first (a body that ended); without, the answer in progress is cancelled (the client
   * went away).
   */
  async close({ finish = false }: { finish?: boolean } = {}): Promise<void> {
    if (finish) await this.#queue;
    this.#closed = true;
    this.#response?.controller.abort();
    await this.#queue;
  }

  /** Tells the client of a fault outside any one event (a line that is not JSON, one too long). */
  refuse(error: LmtabError): void {
    this.#error(error);
  }

  #dispatch(event: ClientEvent): void {
    switch (event.type) {
      case 'session.update':
        this.#update(event.session);
        this.#emit({ type: 'session.updated', session: this.#describe() });
        return;
      case 'input_audio_buffer.append':
        this.#append(decodePcm16(event.audio, 'audio'));
        return;
      case 'input_audio_buffer.commit':
        this.#commit(event.event_id);
        return;
      case 'input_audio_buffer.clear':
        this.#clearBuffer();
        this.#emit({ type: 'input_audio_buffer.cleared' });
        return;
      case 'conversation.item.create':
        this.#addClientItem(event.item, event.previous_item_id ?? undefined);
        return;
      case 'conversation.item.delete': {
        const at = this.#indexOf(event.item_id, 'item_id');
        this.#items.splice(at, 1);
        this.#emit({ type: 'conversation.item.deleted', item_id: event.item_id });
        return;
      }
      case 'conversation.item.retrieve': {
        const stored = this.#items[this.#indexOf(event.item_id, 'item_id')]!;
        this.#emit({ type: 'conversation.item.retrieved', item: this.#withAudio(stored) });
        return;
      }
      case 'conversation.item.truncate': {
        const stored = this.#items[this.#indexOf(event.item_id, 'item_id')]!;
        if (stored.item.type !== 'message' || stored.item.role !== 'assistant') {
          throw new LmtabError(
            'invalid_request',
            `conversation.item.truncate: expected an assistant message, received a ${String(stored.item.role ?? stored.item.type)} item.`,
            { param: 'item_id' },
          );
        }
        // The text the model said stays: the model reads its transcript, not its audio.
        this.#emit({
          type: 'conversation.item.truncated',
          item_id: event.item_id,
          content_index: event.content_index,
          audio_end_ms: event.audio_end_ms,
        });
        return;
      }
      case 'response.create':
        this.#respond(event.response ?? {}, event.event_id);
        return;
      case 'response.cancel':
        if (
          this.#response === undefined ||
          (event.response_id !== undefined && event.response_id !== this.#response.id)
        ) {
          throw new LmtabError(
            'invalid_request',
            `response.cancel: expected an answer in progress${event.response_id === undefined ? '' : ` with id ${event.response_id}`}, and there is none.`,
            { param: 'response_id' },
          );
        }
        this.#response.controller.abort();
        return;
    }
  }

  #update(update: SessionUpdate): void {
    const state = this.#state;
    if (update.model !== undefined && update.model !== this.#options.model) {
      throw new LmtabError(
        'invalid_request',
        `session.model: a session keeps the model it was opened with ("${this.#options.model}"), received "${update.model}"; open another session for another model.`,
        { param: 'session.model' },
      );
    }
    if (update.output_modalities?.[0] === 'audio' && !this.#options.media.speaks) {
      throw new LmtabError(
        'invalid_request',
        `session.output_modalities: "${this.#options.model}" cannot speak (its projector has no audio generator); expected ["text"], received ["audio"].`,
        { param: 'session.output_modalities' },
      );
    }
    if (update.tools !== undefined || update.tool_choice !== undefined) {
      checkTools(update.tools ?? state.tools, update.tool_choice ?? state.toolChoice, 'session');
    }
    if (update.instructions !== undefined) state.instructions = update.instructions;
    if (update.output_modalities !== undefined) {
      state.outputModalities = update.output_modalities as SessionState['outputModalities'];
    }
    if (update.max_output_tokens !== undefined) state.maxOutputTokens = update.max_output_tokens;
    if (update.tools !== undefined) state.tools = update.tools;
    if (update.tool_choice !== undefined) state.toolChoice = update.tool_choice;
    const input = update.audio?.input;
    if (input?.turn_detection !== undefined) {
      state.turnDetection =
        input.turn_detection === null
          ? null
          : { ...defaultVad, ...input.turn_detection, idle_timeout_ms: null };
      this.#vad = this.#newVad();
    }
    if (input?.transcription !== undefined) state.transcription = input.transcription;
    const voice = update.audio?.output?.voice;
    if (voice !== undefined) state.voice = voice;
  }

  #newVad(): VoiceActivity | undefined {
    const vad = this.#state.turnDetection;
    return vad === null
      ? undefined
      : new VoiceActivity({
          threshold: vad.threshold,
          prefixPaddingMs: vad.prefix_padding_ms,
          silenceDurationMs: vad.silence_duration_ms,
        });
  }

  #describe(): Record<string, unknown> {
    const state = this.#state;
    const format = { type: 'audio/pcm', rate: realtimeRate };
    return {
      type: 'realtime',
      object: 'realtime.session',
      id: this.id,
      model: this.#options.model,
      output_modalities: state.outputModalities,
      instructions: state.instructions,
      tools: state.tools,
      tool_choice: state.toolChoice,
      max_output_tokens: state.maxOutputTokens,
      tracing: null,
      truncation: 'auto',
      prompt: null,
      expires_at: 0,
      audio: {
        input: {
          format,
          transcription: state.transcription,
          noise_reduction: null,
          turn_detection: state.turnDetection,
        },
        output: { format, voice: state.voice ?? null, speed: 1 },
      },
      include: null,
    };
  }

  #append(samples: Int16Array): void {
    const bytes = (this.#bufferSamples + samples.length) * 2;
    if (bytes > this.#options.maxBufferBytes) {
      throw new LmtabError(
        'invalid_request',
        `input_audio_buffer.append: the buffer holds at most ${Math.floor(this.#options.maxBufferBytes / 2 / realtimeRate)} s of audio; commit or clear it (received ${samples.length} samples more, ${this.#bufferSamples} waiting).`,
        { param: 'audio' },
      );
    }
    this.#buffer.push(samples);
    this.#bufferSamples += samples.length;
    this.#heardSamples += samples.length;
    const vad = this.#vad;
    const detection = this.#state.turnDetection;
    if (vad === undefined || detection === null) return;
    const prefix = Math.round((detection.prefix_padding_ms * realtimeRate) / 1000);
    for (const change of vad.push(samples)) {
      if (change.type === 'started') {
        // The turn is the speech and the padding before it; earlier silence is not sent.
        this.#keepFrom(Math.round((change.atMs * realtimeRate) / 1000) - prefix);
        this.#emit({
          type: 'input_audio_buffer.speech_started',
          audio_start_ms: Math.max(0, change.atMs - detection.prefix_padding_ms),
          item_id: this.#nextUserItem(),
        });
        if (detection.interrupt_response) this.#response?.controller.abort();
      } else {
        this.#emit({
          type: 'input_audio_buffer.speech_stopped',
          audio_end_ms: change.atMs,
          item_id: this.#nextUserItem(),
        });
        this.#commit(undefined);
        // An answer still running (interruption off) is let be, as OpenAI's server does.
        const busy = this.#response !== undefined && !this.#response.controller.signal.aborted;
        if (detection.create_response && !busy) this.#respond({}, undefined);
      }
    }
    // Between turns only the padding a next turn may need is kept.
    if (!vad.speaking) this.#keepFrom(this.#heardSamples - prefix);
  }

  /** Drops buffered samples before `sample` (counted from the session's first). */
  #keepFrom(sample: number): void {
    let drop = sample - (this.#heardSamples - this.#bufferSamples);
    while (drop > 0 && this.#buffer.length > 0) {
      const first = this.#buffer[0]!;
      if (first.length <= drop) {
        this.#buffer.shift();
        this.#bufferSamples -= first.length;
        drop -= first.length;
      } else {
        this.#buffer[0] = first.subarray(drop);
        this.#bufferSamples -= drop;
        drop = 0;
      }
    }
  }

  /** The id the next committed user item takes (VAD events name it before the commit). */
  #pendingItemId: string | undefined;
  #nextUserItem(): string {
    return (this.#pendingItemId ??= newId('item_'));
  }

  #commit(eventId: string | undefined): void {
    const ms = (this.#bufferSamples * 1000) / realtimeRate;
    if (ms < minimumCommitMs) {
      throw Object.assign(
        new LmtabError(
          'invalid_request',
          `input_audio_buffer.commit: expected at least ${minimumCommitMs} ms of audio in the buffer, received ${ms.toFixed(2)} ms.`,
        ),
        { realtimeCode: 'input_audio_buffer_commit_empty', eventId },
      );
    }
    const samples = new Int16Array(this.#bufferSamples);
    let at = 0;
    for (const piece of this.#buffer) {
      samples.set(piece, at);
      at += piece.length;
    }
    this.#clearBuffer();
    const id = this.#nextUserItem();
    this.#pendingItemId = undefined;
    const previous = this.#items.at(-1)?.item.id ?? null;
    this.#emit({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: id });
    const stored: StoredItem = {
      item: {
        id,
        type: 'message',
        object: 'realtime.item',
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_audio', transcript: null }],
      },
      audio: new Map([[0, samples]]),
    };
    this.#insert(stored, previous ?? undefined);
    if (this.#state.transcription !== null) this.#transcribe(stored, samples);
  }

  #clearBuffer(): void {
    this.#buffer = [];
    this.#bufferSamples = 0;
    this.#vad?.reset();
  }

  #addClientItem(item: ClientItem, previous: string | undefined): void {
    const id = item.id ?? newId('item_');
    if (this.#items.some((s) => s.item.id === id)) {
      throw new LmtabError(
        'invalid_request',
        `item.id: the conversation already has an item "${id}".`,
        {
          param: 'item.id',
        },
      );
    }
    const stored = this.#toStored({ ...item, id });
    this.#insert(stored, previous ?? this.#items.at(-1)?.item.id);
  }

  /** A client item as stored: audio parts decoded, their bytes left out of what is echoed. */
  #toStored(item: ClientItem & { id: string }): StoredItem {
    const audio = new Map<number, Int16Array>();
    const echoed: Record<string, unknown> & { id: string; type: string } = {
      ...item,
      object: 'realtime.item',
      status: 'completed',
    };
    if (item.type === 'message' && item.role === 'user') {
      echoed.content = item.content.map((part, i) => {
        if (part.type !== 'input_audio') return part;
        if (part.audio === undefined) {
          throw new LmtabError(
            'invalid_request',
            `item.content[${i}].audio: expected base64 16-bit PCM at 24 kHz, received none.`,
            { param: `item.content[${i}].audio` },
          );
        }
        audio.set(i, decodePcm16(part.audio, `item.content[${i}].audio`));
        return { type: 'input_audio', transcript: part.transcript ?? null };
      });
    }
    return { item: echoed, audio };
  }

  #insert(stored: StoredItem, previous: string | undefined): void {
    const at =
      previous === undefined ? this.#items.length : this.#indexOf(previous, 'previous_item_id') + 1;
    const before = at === 0 ? null : this.#items[at - 1]!.item.id;
    this.#items.splice(at, 0, stored);
    this.#emit({ type: 'conversation.item.added', previous_item_id: before, item: stored.item });
    this.#emit({ type: 'conversation.item.done', previous_item_id: before, item: stored.item });
  }

  #indexOf(id: string, param: string): number {
    const at = this.#items.findIndex((s) => s.item.id === id);
    if (at < 0) {
      throw new LmtabError(
        'invalid_request',
        `${param}: expected the id of an item in the conversation, received "${id}" (it has ${this.#items.length} items).`,
        { param },
      );
    }
    return at;
  }

  #withAudio(stored: StoredItem): Record<string, unknown> {
    if (stored.audio.size === 0) return stored.item;
    const content = (stored.item.content as Record<string, unknown>[]).map((part, i) => {
      const samples = stored.audio.get(i);
      return samples === undefined ? part : { ...part, audio: encodePcm16(samples) };
    });
    return { ...stored.item, content };
  }

  /** Writes down a committed turn (when the session asks for transcripts), in line with answers. */
  #transcribe(stored: StoredItem, samples: Int16Array): void {
    const config = this.#state.transcription!;
    const itemId = stored.item.id;
    this.#enqueue(async () => {
      const controller = new AbortController();
      try {
        const events = await startEvents(
          this.#options.engine.transcribe(
            {
              model: this.#options.model,
              audio: wavFile(new Uint8Array(samples.buffer), realtimeRate),
              format: 'wav',
              ...(config.language === undefined ? {} : { language: config.language.toLowerCase() }),
              ...(config.prompt === undefined || config.prompt === ''
                ? {}
                : { prompt: config.prompt }),
              temperature: 0,
              // Whisper's decoder window: 448 tokens per 30 s.
              maxTokens: 448 * Math.max(1, Math.ceil(samples.length / realtimeRate / 30)),
            },
            { signal: controller.signal },
          ),
          controller.signal,
          (event) => event.type === 'done',
        );
        for await (const event of events) {
          if (event.type === 'delta') {
            this.#emit({
              type: 'conversation.item.input_audio_transcription.delta',
              item_id: itemId,
              content_index: 0,
              delta: event.text,
            });
          } else {
            const content = stored.item.content as Record<string, unknown>[];
            content[0] = { ...content[0], transcript: event.text };
            this.#emit({
              type: 'conversation.item.input_audio_transcription.completed',
              item_id: itemId,
              content_index: 0,
              transcript: event.text,
              usage: {
                type: 'tokens',
                input_tokens: event.usage.inputTokens,
                output_tokens: event.usage.outputTokens,
                total_tokens: event.usage.inputTokens + event.usage.outputTokens,
              },
            });
          }
        }
      } catch (error) {
        const lmtab = toLmtabError(error);
        this.#emit({
          type: 'conversation.item.input_audio_transcription.failed',
          item_id: itemId,
          content_index: 0,
          error: {
            type: errorTable[lmtab.code].openAiType,
            code: lmtab.code,
            message: lmtab.message,
            param: null,
          },
        });
      }
    });
  }

  #respond(params: ResponseParams, eventId: string | undefined): void {
    // An answer cancelled but not yet ended (queued behind a transcript) does not block the next.
    if (this.#response !== undefined && !this.#response.controller.signal.aborted) {
      throw Object.assign(
        new LmtabError(
          'invalid_request',
          `response.create: the conversation already has an answer in progress (${this.#response.id}); wait for its response.done or send response.cancel.`,
        ),
        { realtimeCode: 'conversation_already_has_active_response', eventId },
      );
    }
    const state = this.#state;
    const modalities = (params.output_modalities ??
      state.outputModalities) as SessionState['outputModalities'];
    if (modalities[0] === 'audio' && !this.#options.media.speaks) {
      throw new LmtabError(
        'invalid_request',
        `response.output_modalities: "${this.#options.model}" cannot speak (its projector has no audio generator); expected ["text"], received ["audio"].`,
        { param: 'response.output_modalities' },
      );
    }
    const tools = params.tools ?? state.tools;
    const toolChoice = params.tool_choice ?? state.toolChoice;
    if (params.tools !== undefined || params.tool_choice !== undefined) {
      checkTools(tools, toolChoice, 'response');
    }
    const input =
      params.input === undefined
        ? params.conversation === 'none'
          ? []
          : this.#items
        : params.input.map((entry, i) =>
            entry.type === 'item_reference'
              ? this.#items[this.#indexOf(entry.id, `response.input[${i}].id`)]!
              : this.#toStored({ ...entry, id: entry.id ?? newId('item_') }),
          );
    const response = {
      id: newId('resp_'),
      object: 'realtime.response',
      status: 'in_progress',
      status_details: null,
      output: [] as Record<string, unknown>[],
      conversation_id: params.conversation === 'none' ? null : this.id,
      output_modalities: modalities,
      max_output_tokens: params.max_output_tokens ?? state.maxOutputTokens,
      audio: {
        output: { format: { type: 'audio/pcm', rate: realtimeRate }, voice: state.voice ?? null },
      },
      usage: null as Record<string, unknown> | null,
      metadata: params.metadata ?? null,
    };
    const messages = this.#messages(params.instructions ?? state.instructions, input);
    const request: GenerateRequest = {
      model: this.#options.model,
      input: { kind: 'chat', messages },
      sampling:
        response.max_output_tokens === 'inf' ? {} : { maxTokens: response.max_output_tokens },
      ...(tools.length === 0
        ? {}
        : {
            tools: tools.map((tool) => ({
              name: tool.name,
              ...(tool.description === undefined ? {} : { description: tool.description }),
              parameters: tool.parameters ?? { type: 'object', properties: {} },
            })),
            toolChoice: typeof toolChoice === 'object' ? { name: toolChoice.name } : toolChoice,
          }),
    };
    const controller = new AbortController();
    const intoConversation = params.conversation !== 'none';
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.#response = { id: response.id, controller, done };
    this.#emit({ type: 'response.created', response: { ...response, output: [] } });
    void eventId;
    this.#enqueue(async () => {
      try {
        await this.#generate(request, response, modalities[0], controller.signal, intoConversation);
      } finally {
        if (this.#response?.id === response.id) this.#response = undefined;
        finish();
      }
    });
  }

  /** The conversation as chat messages: instructions first, committed audio as WAV parts. */
  #messages(instructions: string, input: readonly StoredItem[]): ChatMessage[] {
    const messages: ChatMessage[] =
      instructions === ''
        ? []
        : [{ role: 'system', content: [{ type: 'text', text: instructions }] }];
    for (const { item, audio } of input) {
      if (item.type === 'function_call') {
        const call: ToolCall = {
          id: String(item.call_id),
          name: String(item.name),
          arguments: String(item.arguments),
        };
        const last = messages.at(-1);
        if (last?.role === 'assistant' && last.toolCalls !== undefined) last.toolCalls.push(call);
        else messages.push({ role: 'assistant', content: [], toolCalls: [call] });
        continue;
      }
      if (item.type === 'function_call_output') {
        messages.push({
          role: 'tool',
          content: [{ type: 'text', text: String(item.output) }],
          toolCallId: String(item.call_id),
        });
        continue;
      }
      const role = item.role as ChatMessage['role'];
      const parts = item.content as Record<string, unknown>[];
      const content: ContentPart[] = parts.flatMap((part, i): ContentPart[] => {
        switch (part.type) {
          case 'input_audio': {
            const samples = audio.get(i);
            return samples === undefined
              ? []
              : [
                  {
                    type: 'audio',
                    data: wavFile(pcm16Bytes(samples), realtimeRate),
                    format: 'wav',
                  },
                ];
          }
          case 'output_audio':
            return typeof part.transcript === 'string'
              ? [{ type: 'text', text: part.transcript }]
              : [];
          default:
            return [{ type: 'text', text: String(part.text ?? '') }];
        }
      });
      messages.push({ role, content });
    }
    return messages;
  }

  async #generate(
    request: GenerateRequest,
    response: Record<string, unknown> & { id: string; output: Record<string, unknown>[] },
    modality: 'text' | 'audio',
    signal: AbortSignal,
    intoConversation: boolean,
  ): Promise<void> {
    const engine = this.#options.engine;
    const responseId = response.id;
    let message:
      | { item: Record<string, unknown> & { id: string; type: string }; outputIndex: number }
      | undefined;
    let text = '';
    const calls = new Map<
      number,
      { item: Record<string, unknown> & { id: string; type: string }; outputIndex: number }
    >();
    let status: 'completed' | 'cancelled' | 'incomplete' | 'failed' = 'completed';
    let statusDetails: Record<string, unknown> | null = null;
    let usage: Record<string, unknown> | null = null;
    const partType = modality === 'audio' ? 'audio' : 'text';
    const textKey = modality === 'audio' ? 'transcript' : 'text';
    const addItem = (item: Record<string, unknown> & { id: string; type: string }) => {
      const outputIndex = response.output.length;
      response.output.push(item);
      const previous = this.#items.at(-1)?.item.id ?? null;
      if (intoConversation) this.#items.push({ item, audio: new Map() });
      this.#emit({
        type: 'response.output_item.added',
        response_id: responseId,
        output_index: outputIndex,
        item,
      });
      if (intoConversation)
        this.#emit({ type: 'conversation.item.added', previous_item_id: previous, item });
      return outputIndex;
    };
    const openMessage = () => {
      if (message !== undefined) return message;
      const item = {
        id: newId('item_'),
        type: 'message',
        object: 'realtime.item',
        status: 'in_progress',
        role: 'assistant',
        content: [] as Record<string, unknown>[],
      };
      message = { item, outputIndex: addItem(item) };
      this.#emit({
        type: 'response.content_part.added',
        response_id: responseId,
        item_id: item.id,
        output_index: message.outputIndex,
        content_index: 0,
        part: { type: partType, [textKey]: '' },
      });
      return message;
    };
    try {
      const events = await startGeneration(engine, request, signal);
      for await (const event of events) {
        if (event.type === 'token' && event.text !== '') {
          const open = openMessage();
          text += event.text;
          this.#emit({
            type:
              modality === 'audio'
                ? 'response.output_audio_transcript.delta'
                : 'response.output_text.delta',
            response_id: responseId,
            item_id: open.item.id,
            output_index: open.outputIndex,
            content_index: 0,
            delta: event.text,
          });
        } else if (event.type === 'tool_call') {
          let call = calls.get(event.index);
          if (call === undefined) {
            const item = {
              id: newId('item_'),
              type: 'function_call',
              object: 'realtime.item',
              status: 'in_progress',
              call_id: event.id ?? newId('call_'),
              name: event.name ?? '',
              arguments: '',
            };
            call = { item, outputIndex: addItem(item) };
            calls.set(event.index, call);
          }
          if (event.name !== undefined && call.item.name === '') call.item.name = event.name;
          call.item.arguments = `${String(call.item.arguments)}${event.argumentsDelta}`;
          if (event.argumentsDelta !== '') {
            this.#emit({
              type: 'response.function_call_arguments.delta',
              response_id: responseId,
              item_id: call.item.id,
              output_index: call.outputIndex,
              call_id: call.item.call_id,
              delta: event.argumentsDelta,
            });
          }
        } else if (event.type === 'done') {
          const inputTokens = event.usage.promptTokens;
          const outputTokens = event.usage.completionTokens;
          usage = {
            total_tokens: inputTokens + outputTokens,
            input_tokens: inputTokens,
            output_tokens: outputTokens,
            input_token_details: { cached_tokens: event.usage.cachedPromptTokens ?? 0 },
            output_token_details: { text_tokens: outputTokens, audio_tokens: 0 },
          };
          if (event.finishReason === 'length') {
            status = 'incomplete';
            statusDetails = { type: 'incomplete', reason: 'max_output_tokens' };
          }
        }
      }
      if (modality === 'audio' && text !== '' && message !== undefined) {
        await this.#speak(text, message.item.id, message.outputIndex, responseId, signal);
      }
    } catch (error) {
      const lmtab = toLmtabError(error);
      if (signal.aborted) {
        status = 'cancelled';
        statusDetails = {
          type: 'cancelled',
          reason: this.#closed ? 'client_cancelled' : 'turn_detected',
        };
      } else {
        status = 'failed';
        statusDetails = {
          type: 'failed',
          error: {
            type: errorTable[lmtab.code].openAiType,
            code: lmtab.code,
            message: lmtab.message,
          },
        };
        this.#error(lmtab);
      }
    }
    const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
    if (message !== undefined) {
      const part = { type: partType, [textKey]: text };
      message.item.content = [
        { type: modality === 'audio' ? 'output_audio' : 'output_text', [textKey]: text },
      ];
      message.item.status = itemStatus;
      const ids = {
        response_id: responseId,
        item_id: message.item.id,
        output_index: message.outputIndex,
        content_index: 0,
      };
      this.#emit(
        modality === 'audio'
          ? { type: 'response.output_audio_transcript.done', ...ids, transcript: text }
          : { type: 'response.output_text.done', ...ids, text },
      );
      this.#emit({ type: 'response.content_part.done', ...ids, part });
      this.#emit({
        type: 'response.output_item.done',
        response_id: responseId,
        output_index: message.outputIndex,
        item: message.item,
      });
      if (intoConversation) this.#emit({ type: 'conversation.item.done', item: message.item });
    }
    for (const call of calls.values()) {
      call.item.status = itemStatus;
      this.#emit({
        type: 'response.function_call_arguments.done',
        response_id: responseId,
        item_id: call.item.id,
        output_index: call.outputIndex,
        call_id: call.item.call_id,
        name: call.item.name,
        arguments: call.item.arguments,
      });
      this.#emit({
        type: 'response.output_item.done',
        response_id: responseId,
        output_index: call.outputIndex,
        item: call.item,
      });
      if (intoConversation) this.#emit({ type: 'conversation.item.done', item: call.item });
    }
    this.#emit({
      type: 'response.done',
      response: { ...response, status, status_details: statusDetails, usage },
    });
  }

  /** Speaks an answer's text with a model that generates audio, as 24 kHz PCM deltas. */
  async #speak(
    text: string,
    itemId: string,
    outputIndex: number,
    responseId: string,
    signal: AbortSignal,
  ): Promise<void> {
    const voice = this.#state.voice;
    const chunks = await startEvents(
      this.#options.engine.speak(
        {
          model: this.#options.model,
          input: text,
          format: 'pcm',
          ...(typeof voice === 'string'
            ? { voice }
            : voice === undefined
              ? {}
              : { voice: voice.id }),
        },
        { signal },
      ),
      signal,
      (chunk) => chunk.final,
    );
    const ids = {
      response_id: responseId,
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
    };
    for await (const chunk of chunks) {
      if (chunk.audio.length > 0) {
        this.#emit({
          type: 'response.output_audio.delta',
          ...ids,
          delta: encodePcm16(resamplePcm16(chunk.audio, chunk.sampleRate)),
        });
      }
    }
    this.#emit({ type: 'response.output_audio.done', ...ids });
  }

  #enqueue(work: () => Promise<void>): void {
    this.#queue = this.#queue.then(work, work);
  }

  #emit(event: ServerEvent): void {
    if (this.#closed && event.type !== 'response.done') return;
    this.#options.emit({ event_id: newId('event_'), ...event });
  }

  #error(error: LmtabError & { realtimeCode?: string; eventId?: string }, eventId?: string): void {
    this.#options.emit({
      event_id: newId('event_'),
      type: 'error',
      error: {
        type: errorTable[error.code].openAiType,
        code: error.realtimeCode ?? error.code,
        message: error.message,
        param: error.param ?? null,
        event_id: error.eventId ?? eventId ?? null,
      },
    });
  }
}

/** The bytes of 16-bit samples (little-endian, as the platform stores them here). */
function pcm16Bytes(samples: Int16Array): Uint8Array {
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** Refuses tools whose schemas the engine cannot enforce when forced, and choices of no tool. */
function checkTools(
  tools: readonly RealtimeFunctionTool[],
  choice: RealtimeToolChoice,
  where: string,
): void {
  const names = tools.map((tool) => tool.name);
  if (choice === 'required' && names.length === 0) {
    throw new LmtabError(
      'invalid_request',
      `${where}.tool_choice: "required" needs at least one tool in tools, received none.`,
      {
        param: `${where}.tool_choice`,
      },
    );
  }
  if (typeof choice === 'object' && !names.includes(choice.name)) {
    throw new LmtabError(
      'invalid_request',
      `${where}.tool_choice.name: expected one of the tools (${names.map((n) => JSON.stringify(n)).join(', ') || 'none given'}), received ${JSON.stringify(choice.name)}.`,
      { param: `${where}.tool_choice.name` },
    );
  }
  assertToolSchemas(
    tools.map((tool, i) => ({
      name: tool.name,
      schema: tool.parameters,
      param: `${where}.tools[${i}].parameters`,
    })),
    typeof choice === 'object' ? { name: choice.name } : choice,
  );
}
