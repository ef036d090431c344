import type { TranscriptionChunk, TranscriptionParams } from '@wllama/wllama/esm/index.js';
import { LmtabError } from '../../errors/index.js';
import type {
  GenerateOptions,
  SpeakRequest,
  SpeechChunk,
  TranscribeEvent,
  TranscribeRequest,
} from '../engine.js';
import { VALID_UTF8_GRAMMAR } from './utf8-guard.js';
import { cannotHear, cannotSpeak, createFloatToPcm16 } from '../audio-model.js';
import { engineFailure, hearingReason, requestFailure } from './wllama-failures.js';
import type { Resident, WllamaRuntime } from './wllama-runtime.js';

/** Transcription and speech on the wllama engine, each holding one of the model's slots. */
export function createWllamaAudio(runtime: WllamaRuntime) {
  const { residency, clock } = runtime;

  /** Runs `use` on a model's instance with one of its slots, turning its failures into lmtab's. */
  async function* withSlot<T>(
    model: string,
    signal: AbortSignal | undefined,
    use: (current: Resident, loadMs: number) => AsyncGenerator<T>,
  ): AsyncGenerator<T> {
    const { current, loadMs } = await residency.acquire(model, undefined, signal);
    let releaseSlot: (() => void) | undefined;
    try {
      releaseSlot = await current.slots.take(signal);
      yield* use(current, loadMs);
      signal?.throwIfAborted();
    } catch (error) {
      throw engineFailure(current, requestFailure(current, error, signal), error);
    } finally {
      releaseSlot?.();
      residency.release(current);
    }
  }

  /** OpenAI's transcription through llama-server's own (wllama's `createTranscription`). */
  async function* transcribe(
    request: TranscribeRequest,
    transcribeOptions: GenerateOptions = {},
  ): AsyncGenerator<TranscribeEvent> {
    const { signal } = transcribeOptions;
    const started = clock();
    yield* withSlot(request.model, signal, async function* (current, loadMs) {
      if (!current.wllama.supportInputModality('audio')) {
        throw cannotHear(current.model, hearingReason(current));
      }
      const stream = (await current.wllama.createTranscription({
        file: request.audio.slice().buffer as ArrayBuffer,
        stream: true,
        abortSignal: signal,
        ...(request.language !== undefined && { language: request.language }),
        ...(request.prompt !== undefined && { prompt: request.prompt }),
        ...(request.temperature !== undefined && { temperature: request.temperature }),
        max_tokens: Math.min(request.maxTokens ?? current.contextLength, current.contextLength),
        // As in chats (utf8-guard.ts): the transcript stays valid UTF-8, which wllama's JSON needs.
        logit_bias: current.unsafeTokens.map((id) => [id, false]),
        grammar: VALID_UTF8_GRAMMAR,
      } as TranscriptionParams & { stream: true })) as AsyncIterable<TranscriptionChunk>;
      for await (const chunk of stream) {
        if (chunk.type === 'transcript.text.delta') {
          if (chunk.delta !== '') yield { type: 'delta', text: chunk.delta };
          continue;
        }
        yield {
          type: 'done',
          text: chunk.text,
          usage: {
            inputTokens: chunk.usage?.input_tokens ?? 0,
            outputTokens: chunk.usage?.output_tokens ?? 0,
          },
          timings: { loadMs, totalMs: clock() - started },
        };
      }
    });
  }

  /** OpenAI's speech through llama-server's own (wllama's `createSpeech`), streamed. */
  async function* speak(
    request: SpeakRequest,
    speakOptions: GenerateOptions = {},
  ): AsyncGenerator<SpeechChunk> {
    const { signal } = speakOptions;
    yield* withSlot(request.model, signal, async function* (current) {
      const context = current.wllama.getLoadedContextInfo();
      if (!context.has_audio_output) {
        throw cannotSpeak(
          current.model,
          current.wllama.supportInputModality('audio')
            ? 'its projector (mmproj) hears audio but has no audio generator'
            : 'it has no audio generator (no projector with one)',
        );
      }
      if (request.voice !== undefined && !context.audio_voices.includes(request.voice)) {
        throw new LmtabError(
          'invalid_request',
          `voice: expected one of ${current.model}'s voices (${context.audio_voices.map((v) => `"${v}"`).join(', ') || 'none'}), received "${request.voice}".`,
          { param: 'voice' },
        );
      }
      const chunks = await current.wllama.createSpeech({
        input: request.input,
        response_format: request.format,
        stream: true,
        abortSignal: signal,
        ...(request.voice !== undefined && { voice: request.voice }),
      });
      // llama.cpp's raw output is 32-bit float; OpenAI's `pcm` (and the Realtime API's) is 16-bit.
      const toPcm16 = request.format === 'pcm' ? createFloatToPcm16() : undefined;
      for await (const chunk of chunks) {
        const audio = new Uint8Array(chunk.audio);
        yield {
          audio: toPcm16 === undefined ? audio : toPcm16(audio),
          sampleRate: chunk.sample_rate,
          final: chunk.final,
        };
      }
    });
  }

  return { transcribe, speak };
}
