import { assertCanGenerate, type TranscribeEvent } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { assertAudioFile } from '../media/audio-file.js';
import { describeBytes } from '../body/describe-bytes.js';
import { quote } from '../body/describe-value.js';
import { findModel } from '../pipeline/find-model.js';
import { jsonResponse } from '../encoders/json-response.js';
import { formText, readFormBody } from '../body/read-form-body.js';
import type { RouteContext } from '../pipeline/route-context.js';
import { startEvents } from '../pipeline/start-generation.js';
import { sseResponse } from './chat/sse-response.js';

/** The answers lmtab writes: OpenAI's text forms (it has no timestamps for `srt` and `vtt`). */
const responseFormats = ['json', 'text', 'verbose_json'] as const;

/**
 * Fields OpenAI's transcription takes that would need what the engine does not give (word and
 * segment timestamps, token logprobs, speakers): each is a 400 that names it.
 */
const refusedFields: Record<string, string> = {
  timestamp_granularities: 'lmtab has no word or segment timestamps',
  include: 'lmtab gives no logprobs for transcripts',
  known_speaker_names: 'lmtab does not tell speakers apart',
  known_speaker_references: 'lmtab does not tell speakers apart',
};

/**
 * `POST /v1/audio/transcriptions`: OpenAI's transcription, answered by llama.cpp's own (its
 * "transcribe" chat with the audio file, as llama-server's route does) on a model that hears.
 * `json` answers `{text, usage}`, `text` the text alone, `verbose_json` adds the language asked for
 * and the file's length; `stream` sends `transcript.text.delta` events, then `transcript.text.done`.
 */
export async function handleTranscriptions(context: RouteContext): Promise<Response> {
  const form = await readFormBody(context.request, context.maxBodyBytes);
  for (const [name, why] of Object.entries(refusedFields)) {
    if (form.has(name) || form.has(`${name}[]`)) {
      throw new LmtabError('invalid_request', `${name}: ${why}; leave it out.`, { param: name });
    }
  }
  const file = form.get('file');
  if (!(file instanceof Blob)) {
    throw new LmtabError(
      'invalid_request',
      `Missing required field \`file\`: expected the audio as a file part, received ${file === null ? 'none' : `a text field (${quote(file)})`}.`,
      { param: 'file' },
    );
  }
  const model = formText(form, 'model');
  if (model === undefined || model === '') {
    throw new LmtabError(
      'invalid_request',
      'Missing required field `model`: expected the name of a stored model that hears audio.',
      { param: 'model' },
    );
  }
  const format = oneOf(form, 'response_format', responseFormats) ?? 'json';
  const stream = booleanField(form, 'stream') ?? false;
  if (stream && format === 'verbose_json') {
    throw new LmtabError(
      'invalid_request',
      'stream: a streamed transcript is `transcript.text.*` events; expected `response_format` json or text with it, received verbose_json.',
      { param: 'stream' },
    );
  }
  const asked = formText(form, 'language');
  if (asked !== undefined && !/^[a-z]{2,3}$/i.test(asked)) {
    throw new LmtabError(
      'invalid_request',
      `language: expected an ISO-639-1 code such as "en" or "fr", received ${quote(asked)}.`,
      { param: 'language' },
    );
  }
  const language = asked?.toLowerCase();
  const temperature = numberField(form, 'temperature', 0, 1);
  const prompt = formText(form, 'prompt');
  const audio = new Uint8Array(await file.arrayBuffer());
  const facts = assertAudioFile(audio, 'file');
  const record = await findModel(context.store, model);
  assertCanGenerate(record);
  const started = context.engine.transcribe(
    {
      model: record.id,
      audio,
      format: facts.format,
      ...(language !== undefined && { language }),
      ...(prompt !== undefined && prompt !== '' && { prompt }),
      ...(temperature !== undefined && { temperature }),
      maxTokens: transcriptTokens(facts.durationSeconds),
    },
    { signal: context.signal },
  );
  // The first event comes before the answer's status: a model that cannot hear is a 400.
  const events = await startEvents(started, context.signal, (event) => event.type === 'done');
  if (stream) {
    return sseResponse(transcriptEvents(events), { onCancel: (reason) => context.abort(reason) });
  }
  const done = await lastEvent(events);
  if (format === 'text') {
    return new Response(done.text, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
  if (format === 'json') return jsonResponse({ text: done.text, usage: tokenUsage(done) });
  if (facts.durationSeconds === undefined) {
    throw new LmtabError(
      'invalid_request',
      `response_format: verbose_json states the audio's length, and this ${facts.format} file of ${describeBytes(audio.length)} does not say it in its headers; expected a file whose headers do, or json.`,
      { param: 'response_format' },
    );
  }
  return jsonResponse({
    task: 'transcribe',
    // The language asked for: the engine does not detect one.
    language: language ?? 'unknown',
    duration: facts.durationSeconds,
    text: done.text,
    // OpenAI's verbose answer bills the audio's length, in whole seconds.
    usage: { type: 'duration', seconds: Math.ceil(facts.durationSeconds) },
  });
}

/**
 * The most tokens a transcript may take: Whisper's decoder writes at most 448 per 30 s window, so
 * a model that never ends (or loops) stops there rather than at the end of its context.
 */
function transcriptTokens(seconds: number | undefined): number {
  return 448 * Math.max(1, Math.ceil((seconds ?? 30) / 30));
}

/** OpenAI's usage of a token-billed transcript. */
function tokenUsage(done: Extract<TranscribeEvent, { type: 'done' }>) {
  const { inputTokens, outputTokens } = done.usage;
  return {
    type: 'tokens',
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
}

async function* transcriptEvents(events: AsyncIterable<TranscribeEvent>) {
  for await (const event of events) {
    yield event.type === 'delta'
      ? { type: 'transcript.text.delta', delta: event.text }
      : { type: 'transcript.text.done', text: event.text, usage: tokenUsage(event) };
  }
}

async function lastEvent(
  events: AsyncIterable<TranscribeEvent>,
): Promise<Extract<TranscribeEvent, { type: 'done' }>> {
  for await (const event of events) if (event.type === 'done') return event;
  throw new LmtabError('engine_failure', 'The engine ended the transcript without its text.');
}

/** A text field that must be one of `values`, or absent. */
function oneOf<T extends string>(
  form: FormData,
  name: string,
  values: readonly T[],
): T | undefined {
  const value = formText(form, name);
  if (value === undefined || (values as readonly string[]).includes(value)) {
    return value as T | undefined;
  }
  throw new LmtabError(
    'invalid_request',
    `${name}: expected one of ${values.map((v) => `"${v}"`).join(', ')}, received ${quote(value)}.`,
    { param: name },
  );
}

/** A form's boolean field (`true` or `false`, as OpenAI's SDKs write it), or absent. */
function booleanField(form: FormData, name: string): boolean | undefined {
  const value = oneOf(form, name, ['true', 'false'] as const);
  return value === undefined ? undefined : value === 'true';
}

/** A form's number field within `[min, max]`, or absent. */
function numberField(form: FormData, name: string, min: number, max: number): number | undefined {
  const text = formText(form, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new LmtabError(
      'invalid_request',
      `${name}: expected a number from ${min} to ${max}, received ${quote(text)}.`,
      { param: name },
    );
  }
  return value;
}
