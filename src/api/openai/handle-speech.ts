import { z } from 'zod';
import { assertCanGenerate, type SpeechChunk } from '../../engine/index.js';
import { findModel } from '../pipeline/find-model.js';
import { iterableToStream } from '../encoders/iterable-to-stream.js';
import { parseWire } from '../body/parse-wire.js';
import { readJsonBody } from '../body/read-json-body.js';
import type { RouteContext } from '../pipeline/route-context.js';
import { startEvents } from '../pipeline/start-generation.js';

/**
 * OpenAI's own voice names: clients must send one (the SDK's `voice` is required), and none is a
 * voice of a local model, so each asks for the model's first voice.
 */
export const openAiVoices = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'nova',
  'onyx',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
] as const;

const speechRequestSchema = z.object({
  model: z.string().min(1),
  input: z.string().min(1).max(4096),
  voice: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
  response_format: z
    .enum(['wav', 'pcm'], {
      error: '"wav" or "pcm" (lmtab writes no mp3, opus, aac or flac: the engine makes PCM)',
    })
    .nullish(),
  speed: z
    .literal(1, { error: "1 (lmtab speaks at the model's own pace; change the speed on playback)" })
    .nullish(),
  instructions: z
    .literal('', { error: 'none (the model takes no speaking instructions; leave it out)' })
    .nullish(),
  stream_format: z
    .literal('audio', { error: '"audio" (the audio bytes, streamed as they are made)' })
    .nullish(),
});

/**
 * `POST /v1/audio/speech`: OpenAI's text to speech, answered by llama.cpp's own (wllama's
 * `createSpeech`) on a model that generates audio. The audio is streamed as the engine makes it:
 * `wav` (default; OpenAI's default mp3 is not written) or `pcm`, 16-bit mono at the model's rate
 * (`X-Sample-Rate`).
 */
export async function handleSpeech(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(speechRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  assertCanGenerate(record);
  const named = typeof wire.voice === 'object' && wire.voice !== null ? wire.voice.id : wire.voice;
  const voice =
    named == null || (openAiVoices as readonly string[]).includes(named) ? undefined : named;
  const format = wire.response_format ?? 'wav';
  const chunks = await startEvents(
    context.engine.speak(
      { model: record.id, input: wire.input, format, ...(voice !== undefined && { voice }) },
      { signal: context.signal },
    ),
    context.signal,
    (chunk) => chunk.final,
  );
  const first = await peek(chunks);
  const audio = iterableToStream<Uint8Array>(bytesOf(first.chunks), {
    // Headers are sent: a failure midway ends the audio early (the client sees a short file).
    onError: () => new Uint8Array(0),
    onCancel: (reason) => context.abort(reason),
  });
  return new Response(audio, {
    headers: {
      'Content-Type': format === 'wav' ? 'audio/wav' : 'audio/pcm',
      'X-Sample-Rate': String(first.sampleRate),
    },
  });
}

/** The first chunk's sample rate, and every chunk. */
async function peek(
  chunks: AsyncIterable<SpeechChunk>,
): Promise<{ sampleRate: number; chunks: AsyncIterable<SpeechChunk> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* all(): AsyncGenerator<SpeechChunk> {
    try {
      if (first.done === true) return;
      yield first.value;
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
  return { sampleRate: first.done === true ? 0 : first.value.sampleRate, chunks: all() };
}

async function* bytesOf(chunks: AsyncIterable<SpeechChunk>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) if (chunk.audio.length > 0) yield chunk.audio;
}
