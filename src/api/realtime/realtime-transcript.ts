import type { Engine } from '../../engine/index.js';
import { errorTable, toLmtabError } from '../../errors/index.js';
import { startEvents } from '../pipeline/start-generation.js';
import { wavFile } from '../media/wav-file.js';
import type { ServerEvent } from './realtime-answer.js';
import type { TranscriptionConfig } from './realtime-events.js';
import { realtimeRate } from './pcm-base64.js';

/** Options of {@link runTranscript}. */
export interface TranscriptOptions {
  engine: Engine;
  /** The stored model's id (the session's: it hears). */
  model: string;
  config: NonNullable<TranscriptionConfig>;
  /** The turn's 24 kHz samples. */
  samples: Int16Array;
  itemId: string;
  /** Stops the transcript (the session ended). */
  signal: AbortSignal;
  emit(event: ServerEvent): void;
  /** The whole transcript, for the item's content. */
  onText(text: string): void;
}

/**
 * Writes down one committed turn with llama.cpp's transcription (as `/v1/audio/transcriptions`),
 * told as `conversation.item.input_audio_transcription.delta` events, then `completed` with its
 * usage, or `failed`.
 */
export async function runTranscript(options: TranscriptOptions): Promise<void> {
  const { config, samples, itemId, signal, emit } = options;
  try {
    const events = await startEvents(
      options.engine.transcribe(
        {
          model: options.model,
          audio: wavFile(
            new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength),
            realtimeRate,
          ),
          format: 'wav',
          ...(config.language === undefined ? {} : { language: config.language.toLowerCase() }),
          ...(config.prompt === undefined || config.prompt === '' ? {} : { prompt: config.prompt }),
          temperature: 0,
          // Whisper's decoder window: 448 tokens per 30 s.
          maxTokens: 448 * Math.max(1, Math.ceil(samples.length / realtimeRate / 30)),
        },
        { signal },
      ),
      signal,
      (event) => event.type === 'done',
    );
    for await (const event of events) {
      if (event.type === 'delta') {
        emit({
          type: 'conversation.item.input_audio_transcription.delta',
          item_id: itemId,
          content_index: 0,
          delta: event.text,
        });
        continue;
      }
      options.onText(event.text);
      const { inputTokens, outputTokens } = event.usage;
      emit({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: itemId,
        content_index: 0,
        transcript: event.text,
        usage: {
          type: 'tokens',
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          total_tokens: inputTokens + outputTokens,
        },
      });
    }
  } catch (error) {
    const lmtab = toLmtabError(error);
    emit({
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
}
