import { toolDefinitions } from '../tools/tool-definitions.js';
import type { Engine, GenerateRequest } from '../../engine/index.js';
import { LmtabError, errorTable, toLmtabError } from '../../errors/index.js';
import { newId } from '../encoders/new-id.js';
import { parseWire } from '../body/parse-wire.js';
import { toChatMessages, type StoredItem } from './conversation-messages.js';
import { ConversationItems, storedItem, withAudio } from './conversation-items.js';
import { InputAudioBuffer } from './input-audio-buffer.js';
import { runTranscript } from './realtime-transcript.js';
import { runAnswer, type RealtimeItem, type ServerEvent } from './realtime-answer.js';
import {
  clientEventSchema,
  type ClientEvent,
  type ResponseParams,
  type SessionUpdate,
} from './realtime-events.js';
import { decodePcm16, realtimeRate, VoiceActivity } from './realtime-audio.js';
import {
  applySessionUpdate,
  checkTools,
  describeSession,
  initialSessionState,
  type SessionState,
} from './session-settings.js';

export type { ServerEvent } from './realtime-answer.js';

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
  readonly #items: ConversationItems;
  readonly #buffer: InputAudioBuffer;
  #vad: VoiceActivity | undefined;
  #response: { id: string; controller: AbortController } | undefined;
  #closed = false;
  /** Aborted when the session ends without finishing: transcripts in progress stop. */
  readonly #ending = new AbortController();
  /** The id of the next committed user item, once a VAD event named it. */
  #pendingItemId: string | undefined;
  /** Work in order: transcriptions and answers take the engine one after the other. */
  #queue: Promise<void> = Promise.resolve();

  constructor(options: RealtimeSessionOptions) {
    this.#options = options;
    this.#buffer = new InputAudioBuffer(options.maxBufferBytes);
    this.#items = new ConversationItems((event) => this.#emit(event));
    this.#state = initialSessionState(options.media.speaks);
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
    this.#ending.abort();
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
        this.#commit();
        return;
      case 'input_audio_buffer.clear':
        this.#clearBuffer();
        this.#emit({ type: 'input_audio_buffer.cleared' });
        return;
      case 'conversation.item.create':
        this.#items.addClientItem(event.item, event.previous_item_id ?? undefined);
        return;
      case 'conversation.item.delete':
        this.#items.delete(event.item_id);
        return;
      case 'conversation.item.retrieve': {
        const stored = this.#items.get(event.item_id, 'item_id');
        this.#emit({ type: 'conversation.item.retrieved', item: withAudio(stored) });
        return;
      }
      case 'conversation.item.truncate': {
        const stored = this.#items.get(event.item_id, 'item_id');
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
        this.#respond(event.response ?? {});
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
    const detection = this.#state.turnDetection;
    applySessionUpdate(this.#state, update, {
      model: this.#options.model,
      speaks: this.#options.media.speaks,
    });
    if (this.#state.turnDetection !== detection) this.#vad = this.#newVad();
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
    return describeSession(this.id, this.#options.model, this.#state);
  }

  #append(samples: Int16Array): void {
    const buffer = this.#buffer;
    buffer.append(samples);
    const vad = this.#vad;
    const detection = this.#state.turnDetection;
    if (vad === undefined || detection === null) return;
    const prefix = Math.round((detection.prefix_padding_ms * realtimeRate) / 1000);
    for (const change of vad.push(samples)) {
      if (change.type === 'started') {
        // The turn is the speech and the padding before it; earlier silence is not sent.
        buffer.keepFrom(Math.round((change.atMs * realtimeRate) / 1000) - prefix);
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
        this.#commit();
        // An answer still running (interruption off) is let be, as OpenAI's server does.
        const busy = this.#response !== undefined && !this.#response.controller.signal.aborted;
        if (detection.create_response && !busy) this.#respond({});
      }
    }
    // Between turns only the padding a next turn may need is kept.
    if (!vad.speaking) buffer.keepFrom(buffer.heard - prefix);
  }

  /** The id the next committed user item takes (VAD events name it before the commit). */
  #nextUserItem(): string {
    return (this.#pendingItemId ??= newId('item_'));
  }

  #commit(): void {
    const ms = this.#buffer.milliseconds;
    if (ms < minimumCommitMs) {
      throw Object.assign(
        new LmtabError(
          'invalid_request',
          `input_audio_buffer.commit: expected at least ${minimumCommitMs} ms of audio in the buffer, received ${ms.toFixed(2)} ms.`,
        ),
        { realtimeCode: 'input_audio_buffer_commit_empty' },
      );
    }
    const samples = this.#buffer.take();
    this.#vad?.reset();
    const id = this.#nextUserItem();
    this.#pendingItemId = undefined;
    const previous = this.#items.lastId;
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
    this.#items.insert(stored, previous ?? undefined);
    if (this.#state.transcription !== null) this.#transcribe(stored, samples);
  }

  #clearBuffer(): void {
    this.#buffer.clear();
    this.#vad?.reset();
  }

  /** Writes down a committed turn (when the session asks for transcripts), in line with answers. */
  #transcribe(stored: StoredItem, samples: Int16Array): void {
    const config = this.#state.transcription!;
    this.#enqueue(() =>
      runTranscript({
        engine: this.#options.engine,
        model: this.#options.model,
        config,
        samples,
        itemId: stored.item.id,
        signal: this.#ending.signal,
        emit: (event) => this.#emit(event),
        onText: (text) => {
          const content = stored.item.content as Record<string, unknown>[];
          content[0] = { ...content[0], transcript: text };
        },
      }),
    );
  }

  #respond(params: ResponseParams): void {
    // An answer cancelled but not yet ended (queued behind a transcript) does not block the next.
    if (this.#response !== undefined && !this.#response.controller.signal.aborted) {
      throw Object.assign(
        new LmtabError(
          'invalid_request',
          `response.create: the conversation already has an answer in progress (${this.#response.id}); wait for its response.done or send response.cancel.`,
        ),
        { realtimeCode: 'conversation_already_has_active_response' },
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
          : this.#items.all
        : params.input.map((entry, i) =>
            entry.type === 'item_reference'
              ? this.#items.get(entry.id, `response.input[${i}].id`)
              : storedItem({ ...entry, id: entry.id ?? newId('item_') }),
          );
    const response = {
      id: newId('resp_'),
      object: 'realtime.response',
      status: 'in_progress',
      status_details: null,
      output: [] as RealtimeItem[],
      conversation_id: params.conversation === 'none' ? null : this.id,
      output_modalities: modalities,
      max_output_tokens: params.max_output_tokens ?? state.maxOutputTokens,
      audio: {
        output: { format: { type: 'audio/pcm', rate: realtimeRate }, voice: state.voice ?? null },
      },
      usage: null as Record<string, unknown> | null,
      metadata: params.metadata ?? null,
    };
    const messages = toChatMessages(params.instructions ?? state.instructions, input);
    const request: GenerateRequest = {
      model: this.#options.model,
      input: { kind: 'chat', messages },
      sampling:
        response.max_output_tokens === 'inf' ? {} : { maxTokens: response.max_output_tokens },
      ...(tools.length === 0
        ? {}
        : {
            tools: toolDefinitions(tools),
            toolChoice: typeof toolChoice === 'object' ? { name: toolChoice.name } : toolChoice,
          }),
    };
    const controller = new AbortController();
    const intoConversation = params.conversation !== 'none';
    this.#response = { id: response.id, controller };
    this.#emit({ type: 'response.created', response: { ...response, output: [] } });
    this.#enqueue(async () => {
      try {
        await runAnswer(
          {
            engine: this.#options.engine,
            model: this.#options.model,
            voice: state.voice,
            emit: (event) => this.#emit(event),
            fail: (error) => this.#error(error),
            onItem: (item) => {
              if (intoConversation) this.#items.addAnswerItem(item);
            },
            onItemDone: (item) => {
              if (intoConversation) this.#emit({ type: 'conversation.item.done', item });
            },
            cancelReason: () => (this.#closed ? 'client_cancelled' : 'turn_detected'),
          },
          request,
          response,
          modalities[0],
          controller.signal,
        );
      } finally {
        if (this.#response?.id === response.id) this.#response = undefined;
      }
    });
  }

  #enqueue(work: () => Promise<void>): void {
    this.#queue = this.#queue.then(work, work);
  }

  #emit(event: ServerEvent): void {
    if (this.#closed && event.type !== 'response.done') return;
    this.#options.emit({ event_id: newId('event_'), ...event });
  }

  /** An `error` event; `realtimeCode` is OpenAI's own code where it has one for the fault. */
  #error(error: LmtabError & { realtimeCode?: string }, eventId?: string): void {
    this.#options.emit({
      event_id: newId('event_'),
      type: 'error',
      error: {
        type: errorTable[error.code].openAiType,
        code: error.realtimeCode ?? error.code,
        message: error.message,
        param: error.param ?? null,
        event_id: eventId ?? null,
      },
    });
  }
}
