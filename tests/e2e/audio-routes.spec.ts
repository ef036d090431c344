import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import OpenAI from 'openai';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { fixture, installOpenAi, openTab } from './support/app.js';
import {
  hearingEngineSettings,
  hearingModels,
  openEngineTab,
  startRelay,
  type EngineTab,
} from './support/relay.js';

// OpenAI's audio surfaces with a real model that hears: tiny-lfm2 with a Whisper-shaped audio
// projector (llama.cpp's qwen2a, random weights, written by the project's writer), run by
// wllama 3.13's build, called through the official `openai` SDK in the page (service worker) and
// from Node (relay). Random weights write random text: the checks are on shapes, on the audio
// reaching the encoder (its tokens in the prompt), and on refusals. Speech comes from a tiny
// Pocket TTS (llama.cpp's `pockettts`, random weights): noise, as long as llama.cpp's pipeline
// budgets for the text (its end-of-speech head never fires), 80 ms (1920 samples) per frame.

const model = 'tiny-lfm2-audio';
const speaker = 'tiny-pocket-tts';

/** What a spoken answer held: its pieces as they arrived, its format, its samples' loudness. */
interface Spoken {
  pieces: number;
  type: string | null;
  sampleRateHeader: string | null;
  /** From the WAV header (absent for pcm). */
  header?: { riff: string; channels: number; rate: number; bits: number; data: string };
  samples: number;
  rms: number;
}

interface Answers {
  json: { text: string; usage?: { type: string; input_tokens: number; output_tokens: number } };
  text: string;
  verbose: { task?: string; language: string; duration: number; text: string };
  streamTypes: string[];
  streamText: string;
  streamDone: string;
  chatWithAudio: number;
  chatWithoutAudio: number;
  build: { build: string; buildReason?: string; media?: Record<string, boolean> } | undefined;
  capabilities: string[];
  modalities: { vision: boolean; audio: boolean };
  refusals: Record<string, { status: number; param: string | null | undefined; message: string }>;
  speech: {
    wav: Spoken;
    pcm: Spoken;
    ownVoice: Spoken;
    longer: Spoken;
    media?: Record<string, boolean>;
  };
}

/** The calls, as an OpenAI SDK user makes them (the same code in the page and in Node). */
async function useAudio(
  Client: typeof OpenAI,
  base: string,
  model: string,
  speaker: string,
  wav: number[],
) {
  const client = new Client({
    baseURL: `${base}/v1`,
    apiKey: 'any',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  const bytes = Uint8Array.from(wav);
  const file = () => new File([bytes], 'tone.wav', { type: 'audio/wav' });
  const json = await client.audio.transcriptions.create({ file: file(), model, temperature: 0 });
  const text = await client.audio.transcriptions.create({
    file: file(),
    model,
    response_format: 'text',
  });
  const verbose = await client.audio.transcriptions.create({
    file: file(),
    model,
    language: 'en',
    response_format: 'verbose_json',
  });
  const stream = await client.audio.transcriptions.create({
    file: file(),
    model,
    stream: true,
    temperature: 0,
  });
  const streamTypes: string[] = [];
  let streamText = '';
  let streamDone = '';
  for await (const event of stream) {
    streamTypes.push(event.type);
    if (event.type === 'transcript.text.delta') streamText += event.delta;
    if (event.type === 'transcript.text.done') streamDone = event.text;
  }
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  const question = { type: 'text' as const, text: 'What do you hear?' };
  const withAudio = await client.chat.completions.create({
    model,
    max_tokens: 2,
    messages: [
      {
        role: 'user',
        content: [
          question,
          { type: 'input_audio', input_audio: { data: btoa(binary), format: 'wav' } },
        ],
      },
    ],
  });
  const withoutAudio = await client.chat.completions.create({
    model,
    max_tokens: 2,
    messages: [{ role: 'user', content: [question] }],
  });
  // The model hears on wllama 3.13's build, which serves audio; the engine says why.
  const engine = await (await fetch(`${base}/api/lmtab/engine`)).json();
  const loaded = (
    engine.loaded as { model: string; info: { build: string; buildReason?: string } }[]
  ).find((m) => m.model === model);
  // What clients read before sending audio: Ollama's capabilities, llama-server's modalities.
  const show = await (
    await fetch(`${base}/api/show`, { method: 'POST', body: JSON.stringify({ model }) })
  ).json();
  const props = await (await fetch(`${base}/props?model=${model}`)).json();
  const refusals: Answers['refusals'] = {};
  const refused = async (name: string, call: () => Promise<unknown>) => {
    try {
      await call();
      refusals[name] = { status: 200, param: undefined, message: '' };
    } catch (error) {
      const e = error as { status: number; param?: string | null; message: string };
      refusals[name] = { status: e.status, param: e.param, message: e.message };
    }
  };
  await refused('deafModel', () =>
    client.audio.transcriptions.create({ file: file(), model: 'tiny-lfm2' }),
  );
  await refused('notAudio', () =>
    client.audio.transcriptions.create({
      file: new File([new TextEncoder().encode('not a sound at all')], 'x.m4a'),
      model,
    }),
  );
  await refused('srt', () =>
    client.audio.transcriptions.create({ file: file(), model, response_format: 'srt' }),
  );
  await refused('words', () =>
    client.audio.transcriptions.create({
      file: file(),
      model,
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    }),
  );
  await refused('speech', () =>
    client.audio.speech.create({ model, voice: 'alloy', input: 'Hello', response_format: 'wav' }),
  );
  await refused('speechMp3', () =>
    client.audio.speech.create({ model, voice: 'alloy', input: 'Hello', response_format: 'mp3' }),
  );
  await refused('chatAudioToDeafModel', () =>
    client.chat.completions.create({
      model: 'tiny-lfm2',
      max_tokens: 1,
      messages: [
        {
          role: 'user',
          content: [{ type: 'input_audio', input_audio: { data: btoa(binary), format: 'wav' } }],
        },
      ],
    }),
  );
  // Speech: the SDK's answer is the fetch Response, read piece by piece as a player would.
  const listen = async (response: Response, format: 'wav' | 'pcm'): Promise<Spoken> => {
    const reader = response.body!.getReader();
    const pieces: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pieces.push(value);
    }
    const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const piece of pieces) {
      bytes.set(piece, at);
      at += piece.length;
    }
    const view = new DataView(bytes.buffer);
    const tag = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const start = format === 'wav' ? 44 : 0;
    const samples = Math.floor((bytes.length - start) / 2);
    let sum = 0;
    for (let i = 0; i < samples; i++) sum += view.getInt16(start + i * 2, true) ** 2;
    return {
      pieces: pieces.length,
      type: response.headers.get('content-type'),
      sampleRateHeader: response.headers.get('x-sample-rate'),
      ...(format === 'wav' && {
        header: {
          riff: tag(0) + tag(8),
          channels: view.getUint16(22, true),
          rate: view.getUint32(24, true),
          bits: view.getUint16(34, true),
          data: tag(36),
        },
      }),
      samples,
      rms: Math.sqrt(sum / Math.max(1, samples)),
    };
  };
  const words = 'Hello there, how are you';
  const speech = {
    wav: await listen(
      await client.audio.speech.create({ model: speaker, voice: 'alloy', input: words }),
      'wav',
    ),
    pcm: await listen(
      await client.audio.speech.create({
        model: speaker,
        voice: 'alloy',
        input: words,
        response_format: 'pcm',
      }),
      'pcm',
    ),
    // The model's own voice, by its name.
    ownVoice: await listen(
      await client.audio.speech.create({
        model: speaker,
        voice: 'alba',
        input: words,
        response_format: 'pcm',
      }),
      'pcm',
    ),
    longer: await listen(
      await client.audio.speech.create({
        model: speaker,
        voice: { id: 'alloy' },
        input: `${words}? I am well, thank you, and the weather is lovely today.`,
        response_format: 'wav',
      }),
      'wav',
    ),
    media: (
      (await (await fetch(`${base}/api/lmtab/engine`)).json()).loaded as {
        model: string;
        info: { media?: Record<string, boolean> };
      }[]
    ).find((m) => m.model === speaker)?.info.media,
  };
  await refused('unknownVoice', () =>
    client.audio.speech.create({ model: speaker, voice: 'narrator', input: words }),
  );
  await refused('speechSpeed', () =>
    client.audio.speech.create({ model: speaker, voice: 'alloy', input: words, speed: 2 }),
  );
  return {
    speech,
    json,
    text,
    verbose,
    streamTypes,
    streamText,
    streamDone,
    chatWithAudio: withAudio.usage!.prompt_tokens,
    chatWithoutAudio: withoutAudio.usage!.prompt_tokens,
    build: loaded?.info,
    capabilities: show.capabilities,
    modalities: props.modalities,
    refusals,
  } as unknown as Answers;
}

function checkAnswers(answers: Answers): void {
  expect(typeof answers.json.text).toBe('string');
  // The audio's tokens and the instruction were read; something was written.
  expect(answers.json.usage).toMatchObject({ type: 'tokens' });
  expect(answers.json.usage!.input_tokens).toBeGreaterThanOrEqual(750);
  expect(typeof answers.text).toBe('string');
  // One second of audio, said by the WAV header; the language asked for.
  expect(answers.verbose.task).toBe('transcribe');
  expect(answers.verbose.duration).toBeCloseTo(1, 3);
  expect(answers.verbose.language).toBe('en');
  // Streamed: deltas, then one done with the whole text.
  expect(answers.streamTypes.at(-1)).toBe('transcript.text.done');
  expect(answers.streamTypes.slice(0, -1).every((t) => t === 'transcript.text.delta')).toBe(true);
  expect(answers.streamText).toBe(answers.streamDone);
  // Greedy, the random weights write one token after another up to the cap: a stream of pieces.
  expect(answers.streamTypes.length).toBeGreaterThan(100);
  // The clip's embeddings are in the chat's prompt: Whisper's encoder reads a 30 s window, 750 tokens.
  expect(answers.chatWithAudio - answers.chatWithoutAudio).toBeGreaterThanOrEqual(750);
  expect(answers.build?.build).toBe('wllama 3.13.0');
  expect(answers.build?.buildReason).toContain('audio');
  // As llama.cpp read the projector: it hears, it neither sees nor speaks, no realtime session.
  expect(answers.build?.media).toEqual({
    images: false,
    audioInput: true,
    audioOutput: false,
    realtime: false,
  });
  expect(answers.capabilities).toEqual(['completion', 'audio', 'tools']);
  expect(answers.modalities).toEqual({ vision: false, audio: true });
  const { refusals } = answers;
  expect(refusals.deafModel).toMatchObject({ status: 400, param: 'model' });
  expect(refusals.deafModel!.message).toContain('cannot hear audio');
  expect(refusals.deafModel!.message).toContain('no projector');
  expect(refusals.notAudio).toMatchObject({ status: 400, param: 'file' });
  expect(refusals.notAudio!.message).toContain('WAV, MP3 or FLAC');
  expect(refusals.srt).toMatchObject({ status: 400, param: 'response_format' });
  expect(refusals.words).toMatchObject({ status: 400, param: 'timestamp_granularities' });
  expect(refusals.speech).toMatchObject({ status: 400, param: 'model' });
  expect(refusals.speech!.message).toContain('cannot speak');
  expect(refusals.speechMp3).toMatchObject({ status: 400, param: 'response_format' });
  expect(refusals.chatAudioToDeafModel).toMatchObject({ status: 400, param: 'model' });
  expect(refusals.unknownVoice).toMatchObject({ status: 400, param: 'voice' });
  // The refusal names the model's voices: the tiny model's one predefined voice.
  expect(refusals.unknownVoice!.message).toContain('"narrator"');
  expect(refusals.unknownVoice!.message).toContain('("alba")');
  expect(refusals.speechSpeed).toMatchObject({ status: 400, param: 'speed' });
  checkSpeech(answers.speech);
}

function checkSpeech(speech: Answers['speech']): void {
  const { wav, pcm, longer } = speech;
  // A streamed WAV: 16-bit mono at the model's 24 kHz, in pieces as the decoder makes them.
  expect(wav.type).toBe('audio/wav');
  expect(wav.sampleRateHeader).toBe('24000');
  expect(wav.header).toEqual({
    riff: 'RIFFWAVE',
    channels: 1,
    rate: 24_000,
    bits: 16,
    data: 'data',
  });
  expect(wav.pieces).toBeGreaterThan(1);
  // Whole 80 ms frames, at least the pipeline's two-second floor, and not silence.
  expect(wav.samples % 1920).toBe(0);
  expect(wav.samples).toBeGreaterThanOrEqual(25 * 1920);
  expect(wav.rms).toBeGreaterThan(100);
  // Raw pcm: the same frames as 16-bit samples (llama.cpp's own are 32-bit floats).
  expect(pcm.type).toBe('audio/pcm');
  expect(pcm.sampleRateHeader).toBe('24000');
  expect(pcm.samples).toBe(wav.samples);
  expect(pcm.rms).toBeGreaterThan(100);
  expect(pcm.rms).toBeLessThan(32_768);
  // The model's voice by name speaks the same text for as long (OpenAI's names took it too).
  expect(speech.ownVoice.samples).toBe(wav.samples);
  // More text, more speech: the words reached the model.
  expect(longer.samples % 1920).toBe(0);
  expect(longer.samples).toBeGreaterThan(wav.samples);
  expect(speech.media).toMatchObject({ audioOutput: true });
}

async function audioInPage(page: Page, wav: number[]): Promise<Answers> {
  await installOpenAi(page);
  return page.evaluate(
    ([model, speaker, wav, source]) => {
      const run = new Function(`return (${source})`)() as typeof useAudio;
      const Client = (window as unknown as { OpenAI: typeof OpenAI }).OpenAI;
      return run(Client, location.origin, model, speaker, wav);
    },
    [model, speaker, wav, useAudio.toString()] as const,
  ) as Promise<Answers>;
}

test.describe("OpenAI's audio routes", () => {
  let relay: Relay;
  let tab: EngineTab;
  let wav: number[];

  test.beforeAll(async ({ browser }) => {
    wav = [...(await readFile(fixture('tone-1s.wav')))];
    relay = await startRelay(testPorts.relayAudio);
    tab = await openEngineTab(browser, relay, hearingModels, {
      engineSettings: hearingEngineSettings,
    });
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test('transcriptions, speech, input_audio and refusals in the page, through the service worker', async () => {
    checkAnswers(await audioInPage(tab.page, wav));
  });

  test('the same from Node, through the relay, each call in the request log', async () => {
    checkAnswers(await useAudio(OpenAI, relay.url, model, speaker, wav));
    // The log names the model of a multipart upload (its field comes after the file) and counts
    // a transcript's tokens: the greedy one stops at the cap, 448.
    await openTab(tab.page, 'Developer');
    const rows = tab.page
      .locator('lmtab-server-panel')
      .getByTestId('request-log-row')
      .filter({ hasText: '/v1/audio/transcriptions' })
      .filter({ hasText: model })
      .filter({ hasText: '448' });
    await expect(rows.first()).toContainText('200');
    // A spoken answer's row counts the seconds of audio it carried.
    const spoken = tab.page
      .locator('lmtab-server-panel')
      .getByTestId('request-log-row')
      .filter({ hasText: '/v1/audio/speech' })
      .filter({ hasText: speaker });
    await expect(spoken.filter({ hasText: /\b\d+\.\d s\b/ }).first()).toContainText('200');
  });
});
