import { describe, expect, it } from 'vitest';
import type { ChatMessage, GenerateRequest } from '../../engine/index.js';
import type { FakeScript } from '../testing/fake-engine.js';
import { modelRecordFixture } from '../testing/model-record-fixture.js';
import { routerHarness } from '../testing/router-harness.js';
import { encodePcm16, realtimeRate } from './realtime-audio.js';

// Server events are read as loosely as a client's JSON.parse gives them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Event = { type: string } & Record<string, any>;

/** The chat messages of one of the engine's requests. */
function messagesOf(request: GenerateRequest | undefined): ChatMessage[] {
  if (request?.input.kind !== 'chat') throw new Error('expected a chat request');
  return request.input.messages;
}

/** Opens `/v1/realtime` on the fake engine: client events go in as lines, server events come out. */
async function openSession(script?: (request: GenerateRequest) => FakeScript) {
  const harness = routerHarness({ records: [modelRecordFixture({ id: 'lfm2-audio' })], script });
  const body = new TransformStream<Uint8Array, Uint8Array>();
  const writer = body.writable.getWriter();
  const encoder = new TextEncoder();
  const response = await harness.router.handle(
    new Request('http://lmtab.test/v1/realtime?model=lfm2-audio', {
      method: 'POST',
      body: body.readable,
      duplex: 'half',
    } as RequestInit),
  );
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const seen: Event[] = [];
  let pending = '';
  /** Reads server events until one of `type` arrives; returns it. */
  const until = async (type: string): Promise<Event> => {
    for (;;) {
      const found = seen.find((e) => e.type === type && !(e as { taken?: boolean }).taken);
      if (found) {
        Object.defineProperty(found, 'taken', { value: true });
        return found;
      }
      const { done, value } = await reader.read();
      if (done)
        throw new Error(
          `the session ended before ${type}; saw ${seen.map((e) => e.type).join(', ')}`,
        );
      pending += value;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line !== '') seen.push(JSON.parse(line) as Event);
    }
  };
  return {
    response,
    engine: harness.engine,
    seen,
    until,
    send: (event: unknown) =>
      writer.write(
        encoder.encode(`${typeof event === 'string' ? event : JSON.stringify(event)}\n`),
      ),
    close: () => writer.close(),
  };
}

/** `seconds` of 24 kHz PCM: a 440 Hz tone at `level` of full scale (0 is silence). */
function pcm(seconds: number, level: number): Int16Array {
  const samples = new Int16Array(Math.round(seconds * realtimeRate));
  for (let i = 0; i < samples.length; i++) {
    samples[i] = Math.round(level * 32767 * Math.sin((2 * Math.PI * 440 * i) / realtimeRate));
  }
  return samples;
}

const manualTurns = {
  type: 'session.update',
  session: { type: 'realtime', audio: { input: { turn_detection: null } } },
};

describe('POST /v1/realtime', () => {
  it('opens with session.created, answers a committed turn with text deltas and response.done', async () => {
    const session = await openSession();
    expect(session.response.headers.get('content-type')).toBe('application/x-ndjson');
    const created = await session.until('session.created');
    expect(created.session).toMatchObject({
      type: 'realtime',
      model: 'lfm2-audio',
      output_modalities: ['text'],
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          turn_detection: { type: 'server_vad' },
        },
      },
    });
    await session.send(manualTurns);
    expect((await session.until('session.updated')).session.audio.input.turn_detection).toBeNull();
    await session.send({ type: 'input_audio_buffer.append', audio: encodePcm16(pcm(0.5, 0.3)) });
    await session.send({ type: 'input_audio_buffer.commit', event_id: 'c1' });
    const committed = await session.until('input_audio_buffer.committed');
    const added = await session.until('conversation.item.added');
    expect(added.item).toMatchObject({
      id: committed.item_id,
      role: 'user',
      content: [{ type: 'input_audio', transcript: null }],
    });
    await session.send({ type: 'response.create' });
    const created2 = await session.until('response.created');
    expect(created2.response).toMatchObject({ status: 'in_progress', output_modalities: ['text'] });
    const deltas = [
      (await session.until('response.output_text.delta')).delta,
      (await session.until('response.output_text.delta')).delta,
      (await session.until('response.output_text.delta')).delta,
    ];
    expect(deltas).toEqual(['Hello', ',', ' world']);
    expect((await session.until('response.output_text.done')).text).toBe('Hello, world');
    const done = await session.until('response.done');
    expect(done.response).toMatchObject({
      id: created2.response.id,
      status: 'completed',
      output: [
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello, world' }],
        },
      ],
      usage: { input_tokens: expect.any(Number), output_tokens: 3 },
    });
    // The engine heard the committed turn: a 24 kHz WAV of its 12000 samples.
    const audio = messagesOf(session.engine.requests[0])[0]!.content[0]!;
    if (audio.type !== 'audio') throw new Error(`expected an audio part, received ${audio.type}`);
    expect(audio.format).toBe('wav');
    const wav = audio.data;
    expect(new DataView(wav.buffer, wav.byteOffset).getUint32(24, true)).toBe(24_000);
    expect(wav.length).toBe(44 + 12_000 * 2);
    // The next answer reads the conversation: the turn and the first answer.
    await session.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And?' }] },
    });
    await session.send({ type: 'response.create', response: { instructions: 'Be brief.' } });
    await session.until('response.done');
    expect(messagesOf(session.engine.requests[1]).map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    await session.close();
  });

  it('detects a spoken turn by loudness, commits it and answers (server_vad)', async () => {
    const session = await openSession();
    await session.until('session.created');
    const turn = new Int16Array([...pcm(1, 0), ...pcm(0.4, 0.3), ...pcm(0.7, 0)]);
    for (let at = 0; at < turn.length; at += 2400) {
      await session.send({
        type: 'input_audio_buffer.append',
        audio: encodePcm16(turn.subarray(at, at + 2400)),
      });
    }
    const started = await session.until('input_audio_buffer.speech_started');
    expect(started.audio_start_ms).toBeGreaterThanOrEqual(600);
    expect(started.audio_start_ms).toBeLessThanOrEqual(800);
    const stopped = await session.until('input_audio_buffer.speech_stopped');
    expect(stopped.audio_end_ms).toBeGreaterThanOrEqual(1800);
    expect((await session.until('input_audio_buffer.committed')).item_id).toBe(started.item_id);
    await session.until('response.done');
    // The silence before the padding was not sent: 300 ms of padding, the tone, the trailing silence.
    const part = messagesOf(session.engine.requests[0])[0]!.content[0]!;
    const wav = part.type === 'audio' ? part.data : new Uint8Array();
    const seconds = (wav.length - 44) / 2 / realtimeRate;
    expect(seconds).toBeGreaterThan(1.1);
    expect(seconds).toBeLessThan(1.5);
    await session.close();
  });

  it('cancels the answer in progress when the next turn starts, and answers that turn', async () => {
    let calls = 0;
    const session = await openSession(() => (calls++ === 0 ? { hang: true } : {}));
    await session.until('session.created');
    const turn = new Int16Array([...pcm(0.4, 0.3), ...pcm(0.6, 0)]);
    await session.send({ type: 'input_audio_buffer.append', audio: encodePcm16(turn) });
    const first = await session.until('response.created');
    await session.until('response.output_text.delta');
    await session.send({ type: 'input_audio_buffer.append', audio: encodePcm16(turn) });
    const cancelled = await session.until('response.done');
    expect(cancelled.response).toMatchObject({ id: first.response.id, status: 'cancelled' });
    const second = await session.until('response.done');
    expect(second.response).toMatchObject({ status: 'completed' });
    expect(second.response.id).not.toBe(first.response.id);
    expect(session.seen.filter((e) => e.type === 'error')).toEqual([]);
    await session.close();
  });

  it('writes each committed turn down when the session asks, before answering it', async () => {
    const session = await openSession();
    await session.until('session.created');
    await session.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        audio: {
          input: { turn_detection: null, transcription: { model: 'lfm2-audio', language: 'EN' } },
        },
      },
    });
    await session.send({ type: 'input_audio_buffer.append', audio: encodePcm16(pcm(0.5, 0.3)) });
    await session.send({ type: 'input_audio_buffer.commit' });
    await session.send({ type: 'response.create' });
    const committed = await session.until('input_audio_buffer.committed');
    const written = await session.until('conversation.item.input_audio_transcription.completed');
    const wav = 44 + 12_000 * 2;
    expect(written).toMatchObject({
      item_id: committed.item_id,
      transcript: `Heard ${wav} bytes of wav.`,
      usage: { type: 'tokens', output_tokens: 4 },
    });
    expect(session.engine.audioRequests[0]).toMatchObject({ format: 'wav', language: 'en' });
    await session.until('response.done');
    // The transcript came first: the engine takes one job at a time.
    const types = session.seen.map((e) => e.type);
    expect(types.indexOf('conversation.item.input_audio_transcription.completed')).toBeLessThan(
      types.indexOf('response.output_text.delta'),
    );
    await session.send({ type: 'conversation.item.retrieve', item_id: committed.item_id });
    const retrieved = await session.until('conversation.item.retrieved');
    expect(retrieved.item.content[0]).toMatchObject({
      type: 'input_audio',
      transcript: `Heard ${wav} bytes of wav.`,
    });
    expect(retrieved.item.content[0].audio).toBe(encodePcm16(pcm(0.5, 0.3)));
    await session.close();
  });

  it('answers tool calls as function_call items and takes their output', async () => {
    const session = await openSession((request) =>
      request.tools === undefined || messagesOf(request).some((m) => m.role === 'tool')
        ? {}
        : {
            events: [
              {
                type: 'tool_call',
                index: 0,
                id: 'call_1',
                name: 'get_time',
                argumentsDelta: '{"zone":"UTC"}',
              },
            ],
            finishReason: 'tool_calls',
          },
    );
    await session.until('session.created');
    await session.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        tools: [
          {
            type: 'function',
            name: 'get_time',
            parameters: { type: 'object', properties: { zone: { type: 'string' } } },
          },
        ],
      },
    });
    await session.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Time?' }] },
    });
    await session.send({ type: 'response.create' });
    const call = await session.until('response.function_call_arguments.done');
    expect(call).toMatchObject({
      call_id: 'call_1',
      name: 'get_time',
      arguments: '{"zone":"UTC"}',
    });
    expect((await session.until('response.done')).response.output[0]).toMatchObject({
      type: 'function_call',
      status: 'completed',
    });
    await session.send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: 'call_1', output: '12:00' },
    });
    await session.send({ type: 'response.create' });
    await session.until('response.done');
    const messages = messagesOf(session.engine.requests[1]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]!.toolCalls).toEqual([
      { id: 'call_1', name: 'get_time', arguments: '{"zone":"UTC"}' },
    ]);
    expect(messages[2]).toMatchObject({
      toolCallId: 'call_1',
      content: [{ type: 'text', text: '12:00' }],
    });
    await session.close();
  });

  it('cancels an answer in progress', async () => {
    const session = await openSession(() => ({ hang: true }));
    await session.until('session.created');
    await session.send({ type: 'response.create' });
    await session.until('response.output_text.delta');
    await session.send({ type: 'response.cancel' });
    expect((await session.until('response.done')).response).toMatchObject({ status: 'cancelled' });
    await session.close();
  });

  it('answers each bad event with an error event naming what was expected, and goes on', async () => {
    const session = await openSession();
    await session.until('session.created');
    const errors: Event[] = [];
    const next = async (event: unknown) => {
      await session.send(event);
      errors.push((await session.until('error')).error);
    };
    await next('not json');
    await next({ type: 'input_audio_buffer.commit', event_id: 'empty' });
    await next({
      type: 'session.update',
      session: { type: 'realtime', output_modalities: ['audio'] },
    });
    await next({
      type: 'session.update',
      session: { type: 'realtime', audio: { input: { format: { type: 'audio/pcmu' } } } },
    });
    await next({
      type: 'session.update',
      session: { type: 'realtime', audio: { input: { turn_detection: { type: 'semantic_vad' } } } },
    });
    await next({ type: 'conversation.item.delete', item_id: 'nope' });
    await next({ type: 'response.cancel' });
    await next({ type: 'input_audio_buffer.append', audio: '***' });
    await next({ type: 'no.such.event' });
    expect(errors[0]!.message).toContain('one JSON object');
    expect(errors[1]).toMatchObject({ code: 'input_audio_buffer_commit_empty', event_id: 'empty' });
    expect(errors[2]!.message).toContain('cannot speak');
    expect(errors[3]!.param).toBe('session.audio.input.format.type');
    expect(errors[3]!.message).toContain('audio/pcmu and audio/pcma are not decoded');
    expect(errors[4]!.message).toContain('semantic_vad');
    expect(errors[5]).toMatchObject({ param: 'item_id' });
    expect(errors[6]!.message).toContain('no');
    expect(errors[7]!.param).toBe('audio');
    expect(errors[8]!.param).toBe('type');
    // The session still answers.
    await session.send({ type: 'response.create' });
    expect((await session.until('response.done')).response.status).toBe('completed');
    await session.close();
  });

  it('refuses a session without a model, or for a model that is not stored, before it opens', async () => {
    const { send } = routerHarness({ records: [modelRecordFixture({ id: 'lfm2-audio' })] });
    const missing = await send('/v1/realtime', '');
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { param: string } }).error.param).toBe('model');
    const unknown = await send('/v1/realtime?model=nope', '');
    expect(unknown.status).toBe(404);
  });
});
