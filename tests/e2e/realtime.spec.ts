import { connect } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { bundleForPage, installOpenAi, openTab } from './support/app.js';
import { hearingModels, openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// OpenAI's Realtime API with a real model that hears (tiny-lfm2 with a Whisper-shaped audio
// projector, random weights, run by wllama 3.13's build), called through the official `openai`
// SDK: `OpenAIRealtimeWebSocket` in the page (lmtab's page-side socket, through the service
// worker's engine port) and `OpenAIRealtimeWS` from Node (the relay's WebSocket). Random weights
// say random things: the checks are on the events, on the audio reaching the encoder (its 750
// tokens in the prompt), on turn detection, and on refusals. A tiny Pocket TTS (llama.cpp's
// `pockettts`, random weights) answers a session that speaks: its text, then that text spoken.

const model = 'tiny-lfm2-audio';
const speaker = 'tiny-pocket-tts';

/** What a Realtime client needs of the SDK's two socket classes. */
interface RealtimeClient {
  on(type: string, listener: (event: { type: string } & Record<string, unknown>) => void): void;
  send(event: Record<string, unknown>): void;
  close(): void;
}

interface Outcome {
  createdModel: unknown;
  committedTurn: {
    types: string[];
    text: string;
    deltas: string;
    status: unknown;
    inputTokens: number;
  };
  transcript: { item: boolean; text: unknown; deltas: number };
  textOnlyTokens: number;
  vad: { types: string[]; startMs: unknown; endMs: unknown; status: unknown };
  speakRefused: { code: unknown; message: string };
  spoken: {
    modalities: unknown;
    types: string[];
    transcript: string;
    deltas: string;
    audioBytes: number;
    audioDeltas: number;
    status: unknown;
    contentType: unknown;
  };
  deaf: { message: string; status: unknown };
  unknownModel: { message: string };
  socketClass: string;
}

/**
 * A Realtime session as an SDK user writes one (the same code runs in the page and in Node):
 * `open(model)` makes the SDK's client for the model.
 */
async function useRealtime(
  open: (model: string) => RealtimeClient,
  model: string,
  speaker: string,
): Promise<Outcome> {
  /** A session with every event kept, and a way to wait for the next of a type. */
  const session = (name: string) => {
    const client = open(name);
    const events: ({ type: string } & Record<string, unknown>)[] = [];
    const waiters: { type: string; resolve: (e: (typeof events)[number]) => void }[] = [];
    let read = 0;
    const deliver = (event: (typeof events)[number]) => {
      events.push(event);
      const at = waiters.findIndex((w) => w.type === event.type);
      if (at >= 0) waiters.splice(at, 1)[0]!.resolve(event);
    };
    client.on('event', deliver);
    // The SDK reports error events on 'error' too (and throws where nobody listens); socket
    // failures come only there, and are kept to be shown.
    const failures: string[] = [];
    client.on('error', (error) => {
      if (error.error === undefined) failures.push(String(error.message));
    });
    const next = (type: string, ms = 200_000) =>
      new Promise<(typeof events)[number]>((resolve, reject) => {
        const found = events.slice(read).find((e) => e.type === type);
        if (found) {
          read = events.indexOf(found) + 1;
          return resolve(found);
        }
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no ${type} in ${ms} ms; saw ${events.map((e) => (e.type === 'error' ? JSON.stringify(e) : e.type)).join(', ')}; socket errors: ${failures.join('; ') || 'none'}`,
              ),
            ),
          ms,
        );
        waiters.push({
          type,
          resolve: (event) => {
            clearTimeout(timer);
            read = events.indexOf(event) + 1;
            resolve(event);
          },
        });
      });
    return { client, events, next, mark: () => events.length };
  };
  const tone = (seconds: number, level: number) => {
    const rate = 24_000;
    const bytes = new Uint8Array(Math.round(seconds * rate) * 2);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < bytes.length / 2; i++) {
      view.setInt16(
        i * 2,
        Math.round(level * 32767 * Math.sin((2 * Math.PI * 440 * i) / rate)),
        true,
      );
    }
    return bytes;
  };
  const append = (client: RealtimeClient, bytes: Uint8Array) => {
    // 100 ms per message, as a microphone's chunks come.
    for (let at = 0; at < bytes.length; at += 4800) {
      let binary = '';
      for (const b of bytes.subarray(at, at + 4800)) binary += String.fromCharCode(b);
      client.send({ type: 'input_audio_buffer.append', audio: btoa(binary) });
    }
  };
  const typesSince = (events: { type: string }[], from: number) =>
    events.slice(from).map((e) => e.type);

  const main = session(model);
  const created = await main.next('session.created');
  // Turns committed by hand, each written down by the model too.
  main.client.send({
    type: 'session.update',
    session: {
      type: 'realtime',
      instructions: 'Answer in one word.',
      max_output_tokens: 4,
      audio: { input: { turn_detection: null, transcription: { model, language: 'en' } } },
    },
  });
  await main.next('session.updated');
  let from = main.mark();
  append(main.client, tone(1, 0.3));
  main.client.send({ type: 'input_audio_buffer.commit' });
  const committed = await main.next('input_audio_buffer.committed');
  main.client.send({ type: 'response.create' });
  const transcribed = await main.next('conversation.item.input_audio_transcription.completed');
  const done = await main.next('response.done');
  const turnEvents = main.events.slice(from);
  const response = done.response as {
    status: string;
    usage: { input_tokens: number };
    output: { content: { text: string }[] }[];
  };
  const committedTurn = {
    types: typesSince(main.events, from),
    text: response.output[0]?.content[0]?.text ?? '',
    deltas: turnEvents
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta as string)
      .join(''),
    status: response.status,
    inputTokens: response.usage.input_tokens,
  };
  const transcript = {
    item: transcribed.item_id === committed.item_id,
    text: transcribed.transcript,
    deltas: turnEvents.filter((e) => e.type === 'conversation.item.input_audio_transcription.delta')
      .length,
  };
  // The same instructions without the audio: an answer outside the conversation.
  main.client.send({
    type: 'response.create',
    response: {
      conversation: 'none',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
    },
  });
  const textOnly = await main.next('response.done');
  // Turns detected by loudness: silence, a tone, silence; the server commits and answers.
  main.client.send({
    type: 'session.update',
    session: {
      type: 'realtime',
      audio: {
        input: {
          transcription: null,
          turn_detection: { type: 'server_vad', silence_duration_ms: 300, prefix_padding_ms: 100 },
        },
      },
    },
  });
  await main.next('session.updated');
  from = main.mark();
  append(main.client, tone(0.5, 0));
  append(main.client, tone(0.6, 0.3));
  append(main.client, tone(0.5, 0));
  const started = await main.next('input_audio_buffer.speech_started');
  const stopped = await main.next('input_audio_buffer.speech_stopped');
  const vadDone = await main.next('response.done');
  const vad = {
    types: typesSince(main.events, from),
    startMs: started.audio_start_ms,
    endMs: stopped.audio_end_ms,
    status: (vadDone.response as { status: string }).status,
  };
  main.client.send({
    type: 'session.update',
    session: { type: 'realtime', output_modalities: ['audio'] },
  });
  const refusal = (await main.next('error')).error as { code: string; message: string };
  main.client.close();

  // A model that speaks: sessions answer in audio by default, the text first, then its sound.
  const spoken = session(speaker);
  const spokenCreated = await spoken.next('session.created');
  spoken.client.send({
    type: 'session.update',
    session: { type: 'realtime', max_output_tokens: 6, audio: { input: { turn_detection: null } } },
  });
  await spoken.next('session.updated');
  spoken.client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello.' }] },
  });
  spoken.client.send({ type: 'response.create' });
  const spokenDone = await spoken.next('response.done');
  const spokenResponse = spokenDone.response as {
    status: string;
    output: { content: { type: string; transcript: string }[] }[];
  };
  let audioBytes = 0;
  for (const event of spoken.events) {
    if (event.type === 'response.output_audio.delta')
      audioBytes += atob(event.delta as string).length;
  }
  spoken.client.close();

  // A model that cannot hear: the answer fails, saying why.
  const deaf = session('tiny-lfm2');
  await deaf.next('session.created');
  deaf.client.send({
    type: 'session.update',
    session: { type: 'realtime', audio: { input: { turn_detection: null } } },
  });
  append(deaf.client, tone(0.5, 0.3));
  deaf.client.send({ type: 'input_audio_buffer.commit' });
  deaf.client.send({ type: 'response.create' });
  const deafError = (await deaf.next('error')).error as { message: string };
  const deafDone = await deaf.next('response.done');
  deaf.client.close();

  // A model that is not stored: one error event, then the socket closes.
  const unknown = session('no-such-model');
  const unknownError = (await unknown.next('error')).error as { message: string };
  unknown.client.close();

  return {
    createdModel: (created.session as { model: string }).model,
    committedTurn,
    transcript,
    textOnlyTokens: (textOnly.response as { usage: { input_tokens: number } }).usage.input_tokens,
    vad,
    speakRefused: { code: refusal.code, message: refusal.message },
    spoken: {
      modalities: (spokenCreated.session as { output_modalities: unknown }).output_modalities,
      types: spoken.events.map((e) => e.type),
      transcript: spokenResponse.output[0]?.content[0]?.transcript ?? '',
      deltas: spoken.events
        .filter((e) => e.type === 'response.output_audio_transcript.delta')
        .map((e) => e.delta as string)
        .join(''),
      audioBytes,
      audioDeltas: spoken.events.filter((e) => e.type === 'response.output_audio.delta').length,
      status: spokenResponse.status,
      contentType: spokenResponse.output[0]?.content[0]?.type,
    },
    deaf: { message: deafError.message, status: (deafDone.response as { status: string }).status },
    unknownModel: { message: unknownError.message },
    socketClass: '',
  };
}

function checkOutcome(outcome: Outcome): void {
  expect(outcome.createdModel).toBe(model);
  const turn = outcome.committedTurn;
  // The answer's events in OpenAI's order, and its text is the deltas joined.
  expect(turn.types).toEqual(
    expect.arrayContaining([
      'input_audio_buffer.committed',
      'conversation.item.added',
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ]),
  );
  expect(turn.types.indexOf('response.created')).toBeLessThan(
    turn.types.indexOf('response.output_text.delta'),
  );
  expect(turn.text).toBe(turn.deltas);
  // Four tokens at most: the length limit ends it.
  expect(['completed', 'incomplete']).toContain(turn.status);
  // The committed second reached the audio encoder: Whisper's window is 750 tokens.
  expect(turn.inputTokens - outcome.textOnlyTokens).toBeGreaterThanOrEqual(750);
  expect(outcome.transcript.item).toBe(true);
  expect(typeof outcome.transcript.text).toBe('string');
  expect(outcome.transcript.deltas).toBeGreaterThan(0);
  // Loudness found the tone: it started at 500 ms (less the 100 ms padding) and stopped after 300 ms of quiet.
  expect(outcome.vad.types.slice(0, 4)).toEqual([
    'input_audio_buffer.speech_started',
    'input_audio_buffer.speech_stopped',
    'input_audio_buffer.committed',
    'conversation.item.added',
  ]);
  expect(outcome.vad.startMs).toBeGreaterThanOrEqual(380);
  expect(outcome.vad.startMs).toBeLessThanOrEqual(420);
  expect(outcome.vad.endMs).toBeGreaterThanOrEqual(1400);
  expect(outcome.vad.endMs).toBeLessThanOrEqual(1440);
  expect(outcome.vad.types).toContain('response.done');
  expect(outcome.speakRefused.message).toContain('cannot speak');
  const { spoken } = outcome;
  // Audio by default for a model that speaks, as OpenAI's sessions are.
  expect(spoken.modalities).toEqual(['audio']);
  expect(spoken.types).toEqual(
    expect.arrayContaining([
      'response.content_part.added',
      'response.output_audio_transcript.delta',
      'response.output_audio_transcript.done',
      'response.output_audio.delta',
      'response.output_audio.done',
      'response.done',
    ]),
  );
  // The transcript streams before the sound, and the sound is the transcript spoken.
  expect(spoken.types.indexOf('response.output_audio_transcript.delta')).toBeLessThan(
    spoken.types.indexOf('response.output_audio.delta'),
  );
  expect(spoken.transcript).toBe(spoken.deltas);
  expect(spoken.transcript.trim()).not.toBe('');
  expect(spoken.contentType).toBe('output_audio');
  expect(['completed', 'incomplete']).toContain(spoken.status);
  // 16-bit samples at 24 kHz, in whole 80 ms frames of the tiny Pocket TTS, streamed in pieces.
  expect(spoken.audioBytes % (1920 * 2)).toBe(0);
  expect(spoken.audioBytes).toBeGreaterThanOrEqual(25 * 1920 * 2);
  expect(spoken.audioDeltas).toBeGreaterThan(1);
  expect(outcome.deaf.message).toContain('cannot hear audio');
  expect(outcome.deaf.status).toBe('failed');
  expect(outcome.unknownModel.message).toContain('no-such-model');
}

/**
 * The bytes of `/v1/audio/speech`'s pcm for `text` from the speaking model: as many as a Realtime
 * answer's audio for that transcript (the tiny model's length follows the text alone).
 */
async function speechBytes(base: string, text: string): Promise<number> {
  const response = await fetch(`${base}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: speaker, input: text, voice: 'alloy', response_format: 'pcm' }),
  });
  expect(response.status).toBe(200);
  return (await response.arrayBuffer()).byteLength;
}

async function realtimeInPage(page: Page): Promise<Outcome> {
  await installOpenAi(page);
  await page.evaluate(
    await bundleForPage([
      "import { OpenAIRealtimeWebSocket } from 'openai/realtime/websocket';",
      'window.OpenAIRealtimeWebSocket = OpenAIRealtimeWebSocket;',
    ]),
  );
  // The script tag form, as a page adds it: WebSockets to this origin's /v1/realtime open lmtab's.
  await page.evaluate(() => import(`${location.origin}/lmtab-realtime.js`));
  return page.evaluate(
    async ([model, speaker, source]) => {
      const run = new Function(`return (${source})`)() as typeof useRealtime;
      const w = window as unknown as {
        OpenAI: typeof OpenAI;
        OpenAIRealtimeWebSocket: new (
          props: { model: string },
          client: OpenAI,
        ) => RealtimeClient & { socket: object };
        LmtabRealtimeSocket: new () => object;
      };
      const client = new w.OpenAI({
        baseURL: `${location.origin}/v1`,
        apiKey: 'any',
        dangerouslyAllowBrowser: true,
      });
      const classes: string[] = [];
      const outcome = await run(
        (name) => {
          const rt = new w.OpenAIRealtimeWebSocket({ model: name }, client);
          classes.push(
            rt.socket instanceof w.LmtabRealtimeSocket ? 'lmtab' : rt.socket.constructor.name,
          );
          return rt;
        },
        model,
        speaker,
      );
      return { ...outcome, socketClass: [...new Set(classes)].join(',') };
    },
    [model, speaker, useRealtime.toString()] as const,
  );
}

test.describe("OpenAI's Realtime API", () => {
  // Each session writes a greedy transcript to Whisper's cap (448 tokens) of random text; on two
  // loaded cores that took over 100 s once.
  test.describe.configure({ timeout: 300_000 });
  let relay: Relay;
  let tab: EngineTab;

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(testPorts.relayRealtime);
    tab = await openEngineTab(browser, relay, hearingModels);
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test('a session in the page: the SDK on lmtab’s socket, through the service worker', async () => {
    const outcome = await realtimeInPage(tab.page);
    // Every socket the SDK opened was the page's own, not a WebSocket to the relay.
    expect(outcome.socketClass).toBe('lmtab');
    checkOutcome(outcome);
    expect(outcome.spoken.audioBytes).toBe(await speechBytes(relay.url, outcome.spoken.transcript));
  });

  test('the same from Node, on the relay’s WebSocket, logged', async () => {
    const client = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any' });
    // The SDK always opens wss://; over the relay's plain http it is given a plain TCP connection.
    const plain = { createConnection: connect };
    const outcome = await useRealtime(
      (name) =>
        new OpenAIRealtimeWS({ model: name, options: plain }, client) as unknown as RealtimeClient,
      model,
      speaker,
    );
    checkOutcome(outcome);
    // The answer's sound is its transcript spoken, as 16-bit samples (llama.cpp's are floats).
    expect(outcome.spoken.audioBytes).toBe(await speechBytes(relay.url, outcome.spoken.transcript));
    await openTab(tab.page, 'Developer');
    const rows = tab.page
      .locator('lmtab-server-panel')
      .getByTestId('request-log-row')
      .filter({ hasText: '/v1/realtime' })
      .filter({ hasText: model });
    await expect(rows.first()).toContainText('200');
  });

  test('the relay refuses a Realtime socket from a page of another origin', async () => {
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${relay.url.replace('http', 'ws')}/v1/realtime?model=${model}`, {
        headers: { Origin: 'https://evil.example' },
      });
      ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(refused).toBe(403);
  });
});
