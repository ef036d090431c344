import { describe, expect, it } from 'vitest';
import { testWav } from '../testing/audio-samples.js';
import { fakeSpeechRate } from '../testing/fake-engine.js';
import { embedderRecordFixture, modelRecordFixture } from '../testing/model-record-fixture.js';
import { readChunks, routerHarness, sseData } from '../testing/router-harness.js';

const records = [
  modelRecordFixture({ id: 'lfm2-audio' }),
  modelRecordFixture({ id: 'lfm2-deaf' }),
  embedderRecordFixture('bge-small'),
];
const wav = testWav(16_000);

/** A transcription form as OpenAI's SDK sends it: the file, then text fields. */
function form(fields: Record<string, string | string[]> = {}, file: Uint8Array | null = wav) {
  const body = new FormData();
  if (file !== null) body.append('file', new Blob([file as BlobPart]), 'clip.wav');
  body.append('model', 'lfm2-audio');
  for (const [name, value] of Object.entries(fields)) {
    for (const one of Array.isArray(value) ? value : [value]) body.set(name, one);
  }
  return body;
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { message: string; param: string | null } }).error;
}

describe('POST /v1/audio/transcriptions', () => {
  it('answers {text, usage} with the engine transcript, asked with the file and hints', async () => {
    const { sendForm, engine } = routerHarness({ records });
    const response = await sendForm(
      '/v1/audio/transcriptions',
      form({ language: 'EN', prompt: 'Tone.', temperature: '0.2' }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      text: `Heard ${wav.length} bytes of wav.`,
      usage: { type: 'tokens', input_tokens: 25, output_tokens: 4, total_tokens: 29 },
    });
    expect(engine.audioRequests).toEqual([
      {
        model: 'lfm2-audio',
        audio: wav,
        format: 'wav',
        language: 'en',
        prompt: 'Tone.',
        temperature: 0.2,
        // Whisper's 448 tokens per 30 s window.
        maxTokens: 448,
      },
    ]);
  });

  it('answers text/plain for `text` and the length for `verbose_json`', async () => {
    const { sendForm } = routerHarness({ records });
    const text = await sendForm('/v1/audio/transcriptions', form({ response_format: 'text' }));
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toBe(`Heard ${wav.length} bytes of wav.`);
    const verbose = await sendForm(
      '/v1/audio/transcriptions',
      form({ response_format: 'verbose_json', language: 'fr' }),
    );
    expect(await verbose.json()).toMatchObject({
      task: 'transcribe',
      language: 'fr',
      duration: 1,
      text: `Heard ${wav.length} bytes of wav.`,
    });
  });

  it('streams transcript.text.delta events, then transcript.text.done', async () => {
    const { sendForm } = routerHarness({ records });
    const response = await sendForm('/v1/audio/transcriptions', form({ stream: 'true' }));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseData(await readChunks(response)) as { type: string; delta?: string }[];
    expect(events.map((e) => e.type)).toEqual([
      ...Array(4).fill('transcript.text.delta'),
      'transcript.text.done',
    ]);
    expect(
      events
        .slice(0, 4)
        .map((e) => e.delta)
        .join(''),
    ).toBe((events[4] as unknown as { text: string }).text);
  });

  it('refuses, naming the field, what it cannot honour or read', async () => {
    const cases: [FormData, number, string | null, RegExp][] = [
      [form({}, null), 400, 'file', /Missing required field `file`/],
      [form({ response_format: 'srt' }), 400, 'response_format', /"json", "text", "verbose_json"/],
      [form({ 'timestamp_granularities[]': 'word' }), 400, 'timestamp_granularities', /timestamps/],
      [form({ 'include[]': 'logprobs' }), 400, 'include', /logprobs/],
      [form({ language: 'english' }), 400, 'language', /ISO-639-1/],
      [form({ temperature: '1.5' }), 400, 'temperature', /from 0 to 1/],
      [form({ stream: 'true', response_format: 'verbose_json' }), 400, 'stream', /verbose_json/],
      [form({ stream: 'yes' }), 400, 'stream', /"true", "false"/],
      [form({}, new TextEncoder().encode('ftypM4A ')), 400, 'file', /WAV, MP3 or FLAC/],
      [form({ model: 'nope' }), 404, 'model', /nope/],
      [form({ model: 'bge-small' }), 400, 'model', /embedding model/],
      [form({ model: 'lfm2-deaf' }), 400, 'model', /cannot hear audio/],
    ];
    for (const [body, status, param, message] of cases) {
      const { sendForm } = routerHarness({ records });
      const response = await sendForm('/v1/audio/transcriptions', body);
      const error = await errorOf(response);
      expect([response.status, error.param], error.message).toEqual([status, param]);
      expect(error.message).toMatch(message);
    }
  });

  it('refuses a body that is not multipart/form-data', async () => {
    const { send } = routerHarness({ records });
    const response = await send('/v1/audio/transcriptions', { model: 'lfm2-audio' });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toMatch(
      /Expected a multipart\/form-data body .* received Content-Type "application\/json"/,
    );
  });
});

describe('POST /v1/audio/speech', () => {
  it("streams the engine's audio as WAV by default, at its rate; OpenAI's voices are the model's first", async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/v1/audio/speech', {
      model: 'lfm2-audio',
      input: 'Hello',
      voice: 'alloy',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('x-sample-rate')).toBe(String(fakeSpeechRate));
    const bytes = new Uint8Array(await response.arrayBuffer());
    // The header, then 2 bytes per byte of input.
    expect(bytes.length).toBe(44 + 10);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('RIFF');
    expect(engine.audioRequests).toEqual([{ model: 'lfm2-audio', input: 'Hello', format: 'wav' }]);
  });

  it('passes a voice of the model and answers raw PCM when asked', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/v1/audio/speech', {
      model: 'lfm2-audio',
      input: 'Hi',
      voice: { id: 'liquid-female' },
      response_format: 'pcm',
      speed: 1,
    });
    expect(response.headers.get('content-type')).toBe('audio/pcm');
    expect((await response.arrayBuffer()).byteLength).toBe(4);
    expect(engine.audioRequests).toEqual([
      { model: 'lfm2-audio', input: 'Hi', format: 'pcm', voice: 'liquid-female' },
    ]);
  });

  it('refuses, naming the field, what changes the audio and is not done', async () => {
    const base = { model: 'lfm2-audio', input: 'Hello', voice: 'alloy' };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ response_format: 'mp3' }, 'response_format', /"wav" or "pcm"/],
      [{ speed: 1.5 }, 'speed', /own pace/],
      [{ instructions: 'Whisper it.' }, 'instructions', /no speaking instructions/],
      [{ stream_format: 'sse' }, 'stream_format', /"audio"/],
      [{ input: '' }, 'input', /input/],
    ];
    for (const [fields, param, message] of cases) {
      const { send } = routerHarness({ records });
      const response = await send('/v1/audio/speech', { ...base, ...fields });
      const error = await errorOf(response);
      expect([response.status, error.param], error.message).toEqual([400, param]);
      expect(error.message).toMatch(message);
    }
  });
});

describe('input_audio parts in /v1/chat/completions', () => {
  const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
  const chat = (part: unknown, extra: Record<string, unknown> = {}) => ({
    model: 'lfm2-audio',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Listen:' }, part] }],
    ...extra,
  });

  it('hands the engine the decoded clip as an audio part', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send(
      '/v1/chat/completions',
      chat({ type: 'input_audio', input_audio: { data: base64(wav), format: 'wav' } }),
    );
    expect(response.status).toBe(200);
    const input = engine.requests[0]!.input;
    expect(input.kind === 'chat' && input.messages[0]!.content).toEqual([
      { type: 'text', text: 'Listen:' },
      { type: 'audio', data: wav, format: 'wav' },
    ]);
  });

  it('refuses a clip that is not what it says, not base64, and spoken answers', async () => {
    const cases: [unknown, string, RegExp][] = [
      [
        chat({ type: 'input_audio', input_audio: { data: base64(wav), format: 'mp3' } }),
        'messages[0].content[1].input_audio.format',
        /says "mp3", and the data is a wav file/,
      ],
      [
        chat({ type: 'input_audio', input_audio: { data: '***', format: 'wav' } }),
        'messages[0].content[1].input_audio.data',
        /expected base64-encoded audio bytes/,
      ],
      [
        chat({ type: 'input_audio', input_audio: { data: base64(wav), format: 'm4a' } }),
        'messages[0].content[1].input_audio.format',
        /"wav", "mp3" or "flac"/,
      ],
      [
        chat({ type: 'text', text: 'x' }, { modalities: ['text', 'audio'] }),
        'modalities[1]',
        /\/v1\/audio\/speech/,
      ],
      [
        chat({ type: 'text', text: 'x' }, { audio: { voice: 'alloy', format: 'wav' } }),
        'audio',
        /\/v1\/audio\/speech/,
      ],
    ];
    for (const [body, param, message] of cases) {
      const { send } = routerHarness({ records });
      const response = await send('/v1/chat/completions', body);
      const error = await errorOf(response);
      expect([response.status, error.param], error.message).toEqual([400, param]);
      expect(error.message).toMatch(message);
    }
  });
});
