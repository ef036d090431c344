import { describe, expect, it } from 'vitest';
import { modelRecordFixture } from '../../testing/model-record-fixture.js';
import { readChunks, routerHarness } from '../../testing/router-harness.js';

const at = '2026-11-21T12:00:00.000Z';
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const vision = modelRecordFixture({
  id: 'lfm2-vl',
  projector: { fileId: 'p', name: 'p.gguf', size: 1, chunkSize: 1, chunks: 1, complete: true },
});

describe('POST /api/chat', () => {
  it('streams assistant messages as NDJSON, the last one with nanosecond durations', async () => {
    const { send } = routerHarness();
    const response = await send('/api/chat', {
      model: 'lfm2-350m',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(response.headers.get('Content-Type')).toBe('application/x-ndjson');
    const message = (content: string) => `"message":{"role":"assistant","content":"${content}"}`;
    expect(await readChunks(response)).toEqual([
      `{"model":"lfm2-350m","created_at":"${at}",${message('Hello')},"done":false}\n`,
      `{"model":"lfm2-350m","created_at":"${at}",${message(',')},"done":false}\n`,
      `{"model":"lfm2-350m","created_at":"${at}",${message(' world')},"done":false}\n`,
      `{"model":"lfm2-350m","created_at":"${at}",${message('')},"done":true,"done_reason":"stop",` +
        '"total_duration":52000000,"load_duration":1500000,"prompt_eval_count":7,' +
        '"prompt_eval_duration":20000000,"eval_count":3,"eval_duration":30250000}\n',
    ]);
  });

  it('keeps a call whose arguments are not JSON as content, streamed and whole, instead of failing', async () => {
    const { send } = routerHarness({
      script: () => ({
        events: [
          {
            type: 'tool_call',
            index: 0,
            id: 'call_1',
            name: 'weather',
            argumentsDelta: '{city: Oslo',
          },
          {
            type: 'tool_call',
            index: 1,
            id: 'call_2',
            name: 'weather',
            argumentsDelta: '{"city":"Bergen"}',
          },
        ],
        finishReason: 'tool_calls',
      }),
    });
    const body = {
      model: 'lfm2-350m',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
    };
    const expected = {
      role: 'assistant',
      content: 'weather({city: Oslo)',
      tool_calls: [{ function: { name: 'weather', arguments: { city: 'Bergen' } } }],
    };
    const whole = await send('/api/chat', { ...body, stream: false });
    expect(whole.status).toBe(200);
    expect((await whole.json()).message).toEqual(expected);
    const lines = (await readChunks(await send('/api/chat', body)))
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message: object; done: boolean });
    expect(lines.map(({ message }) => message)).toEqual([
      expected,
      { role: 'assistant', content: '' },
    ]);
    expect(lines.at(-1)?.done).toBe(true);
  });

  it('hands the engine message images as bytes before the text', async () => {
    const { send, engine } = routerHarness({ records: [vision] });
    const response = await send('/api/chat', {
      model: 'lfm2-vl',
      stream: false,
      messages: [
        { role: 'system', content: 'Describe images.' },
        { role: 'user', content: 'What is this?', images: [btoa(String.fromCharCode(...png))] },
      ],
      options: { temperature: 0.5, repeat_penalty: 1.05 },
    });
    expect(await response.json()).toMatchObject({
      message: { role: 'assistant', content: 'Hello, world' },
      done: true,
      done_reason: 'stop',
      eval_count: 3,
    });
    expect(engine.requests[0]).toEqual({
      model: 'lfm2-vl',
      input: {
        kind: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Describe images.' }] },
          {
            role: 'user',
            content: [
              { type: 'image', data: png, mimeType: 'image/png' },
              { type: 'text', text: 'What is this?' },
            ],
          },
        ],
      },
      sampling: { temperature: 0.5, repeatPenalty: 1.05 },
    });
  });

  it('loads the model when there are no messages', async () => {
    const { send, engine } = routerHarness();
    const response = await send('/api/chat', { model: 'lfm2-350m', messages: [] });
    expect(await response.json()).toEqual({
      model: 'lfm2-350m',
      created_at: at,
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'load',
    });
    expect(engine.loads).toHaveLength(1);
  });

  it('names the message image that cannot be read', async () => {
    const { send } = routerHarness({ records: [vision] });
    const response = await send('/api/chat', {
      model: 'lfm2-vl',
      messages: [{ role: 'user', content: 'x', images: [btoa('not an image')] }],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error:
        'Invalid image at `messages[0].images[0]`: expected a PNG, JPEG, GIF, WebP or BMP image, ' +
        'received 12 bytes that are none of these (first bytes: 6e 6f 74 20 61 6e 20 69).',
    });
  });

  it('honours tool_choice as Chat Completions does (ollama-ai-provider-v2 sends it)', async () => {
    const { send, engine } = routerHarness();
    const weather = {
      type: 'function',
      function: {
        name: 'weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    };
    const fetchTool = {
      type: 'function',
      function: {
        name: 'fetch',
        parameters: { type: 'object', properties: { url: { type: 'string', format: 'uri' } } },
      },
    };
    const body = {
      model: 'lfm2-350m',
      stream: false,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [weather, fetchTool],
    };
    for (const [choice, expected] of [
      ['required', 'required'],
      [{ type: 'function', function: { name: 'weather' } }, { name: 'weather' }],
      ['none', 'none'],
    ] as const) {
      const response = await send('/api/chat', {
        ...body,
        tools: [weather],
        tool_choice: choice,
      });
      expect(response.status, JSON.stringify(choice)).toBe(200);
      expect(engine.requests.at(-1)?.toolChoice).toEqual(expected);
    }
    expect((await send('/api/chat', body)).status).toBe(200);
    expect(engine.requests.at(-1)).not.toHaveProperty('toolChoice');
    const refusals: [unknown, string][] = [
      [
        { ...body, tool_choice: 'required' },
        'The string format "uri" cannot be enforced by this engine',
      ],
      [
        { ...body, tool_choice: { type: 'function', function: { name: 'clock' } } },
        'Invalid `tool_choice.function.name`: expected one of the tools ("weather", "fetch"), received "clock".',
      ],
      [{ ...body, tools: [], tool_choice: 'required' }, 'needs at least one tool'],
    ];
    for (const [request, message] of refusals) {
      const response = await send('/api/chat', request);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain(message);
    }
  });
});

describe('a custom model’s num_predict', () => {
  it('is lifted by a request’s num_predict -1 and lowered by a number', async () => {
    const brief = modelRecordFixture({
      id: 'brief',
      customization: { from: 'lfm2-350m', parameters: { num_predict: 64 }, messages: [] },
    });
    const { send, engine } = routerHarness({ records: [brief] });
    const ask = (options?: Record<string, unknown>) =>
      send('/api/chat', {
        model: 'brief',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: false,
        ...(options === undefined ? {} : { options }),
      });
    for (const options of [
      undefined,
      { num_predict: -1 },
      { num_predict: -2 },
      { num_predict: 5 },
    ]) {
      expect((await ask(options)).status).toBe(200);
    }
    expect(engine.requests.map((r) => r.sampling.maxTokens)).toEqual([64, undefined, undefined, 5]);
  });
});
