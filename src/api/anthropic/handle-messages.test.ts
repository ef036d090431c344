import Anthropic, { BadRequestError, NotFoundError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import type { GenerateRequest } from '../../engine/index.js';
import { readChunks, routerHarness, sseEvents } from '../testing/router-harness.js';
import type { RouterHarnessOptions } from '../testing/router-harness.js';

const client = (options: RouterHarnessOptions = {}) => {
  const harness = routerHarness(options);
  const anthropic = new Anthropic({
    apiKey: 'unused',
    baseURL: 'http://lmtab.test',
    maxRetries: 0,
    fetch: (input, init) => harness.router.handle(new Request(input, init)),
  });
  return { ...harness, anthropic };
};

const weatherCall = (request: GenerateRequest) =>
  request.tools === undefined || request.sampling.maxTokens === 1
    ? {}
    : {
        events: [
          { type: 'reasoning' as const, text: 'Need weather.' },
          {
            type: 'tool_call' as const,
            index: 0,
            id: 'toolu_1',
            name: 'weather',
            argumentsDelta: '',
          },
          { type: 'tool_call' as const, index: 0, argumentsDelta: '{"city":' },
          { type: 'tool_call' as const, index: 0, argumentsDelta: '"Oslo"}' },
        ],
        // As llama.cpp ends a forced call: finish reason `stop`, the call made.
        finishReason: 'stop' as const,
      };

const weatherTool = {
  name: 'weather',
  description: 'Weather in a city',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};

// What Claude Code's tools carry: keywords llama.cpp's grammar cannot enforce.
const agentSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri' },
    timeout: { type: 'number', minimum: 0 },
    headers: { type: 'object', propertyNames: { pattern: '^[a-z-]+$' } },
  },
  required: ['url'],
};

function chat(request: GenerateRequest | undefined) {
  if (request?.input.kind !== 'chat') throw new Error('expected a chat request');
  return request.input.messages;
}

describe('POST /v1/messages', () => {
  it('answers a message and converts the request to one generate request', async () => {
    const { anthropic, engine } = client();
    const message = await anthropic.messages.create({
      model: 'lfm2-350m',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      metadata: { user_id: 'u1' },
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      cache_control: { type: 'ephemeral' },
      // The SDK's types leave out the sampling fields the API still takes.
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(message).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{24}$/) as unknown,
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello, world' }],
      model: 'lfm2-350m',
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 7,
        output_tokens: 3,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    });
    expect(engine.requests[0]).toEqual({
      model: 'lfm2-350m',
      input: {
        kind: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        ],
      },
      sampling: { maxTokens: 64, temperature: 0.2, topP: 0.9, topK: 40 },
      format: { type: 'json', schema: { type: 'object' } },
    });
  });

  it('reports the stop sequence that ended the answer, and max_tokens', async () => {
    const { anthropic } = client();
    const stopped = await anthropic.messages.create({
      model: 'lfm2-350m',
      max_tokens: 64,
      stop_sequences: ['###', ','],
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(stopped).toMatchObject({
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'stop_sequence',
      stop_sequence: ',',
    });
    const cut = await anthropic.messages.create({
      model: 'lfm2-350m',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', stop_sequence: null });
  });

  it('answers a tool call cut by max_tokens with stop_reason max_tokens, not a failure', async () => {
    const { anthropic } = client({
      script: () => ({
        events: [
          { type: 'tool_call', index: 0, id: 'toolu_1', name: 'weather', argumentsDelta: '{"ci' },
        ],
        finishReason: 'length',
      }),
    });
    const message = await anthropic.messages.create({
      model: 'lfm2-350m',
      max_tokens: 2,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    expect(message).toMatchObject({
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }],
      stop_reason: 'max_tokens',
    });
  });

  it('keeps a call whose arguments are not JSON as text, streamed and whole, instead of failing', async () => {
    const { anthropic, send } = client({
      script: () => ({
        events: [
          { type: 'token', text: 'Let me check. ' },
          { type: 'tool_call', index: 0, id: 'toolu_1', name: 'weather', argumentsDelta: '{city:' },
          { type: 'tool_call', index: 0, argumentsDelta: ' Oslo' },
          {
            type: 'tool_call',
            index: 1,
            id: 'toolu_2',
            name: 'weather',
            argumentsDelta: '{"city":',
          },
          { type: 'tool_call', index: 1, argumentsDelta: '"Bergen"}' },
        ],
        finishReason: 'tool_calls',
      }),
    });
    const request = {
      model: 'lfm2-350m',
      max_tokens: 64,
      tools: [weatherTool],
      messages: [{ role: 'user' as const, content: 'Weather?' }],
    };
    const expected = {
      content: [
        { type: 'text', text: 'Let me check. ' },
        { type: 'text', text: 'weather({city: Oslo)' },
        { type: 'tool_use', id: 'toolu_2', name: 'weather', input: { city: 'Bergen' } },
      ],
      stop_reason: 'tool_use',
    };
    expect(await anthropic.messages.stream(request).finalMessage()).toMatchObject(expected);
    expect(await anthropic.messages.create(request)).toMatchObject(expected);
    // The call's JSON comes whole, in one input_json_delta, once it is known to parse.
    const events = sseEvents(
      await readChunks(await send('/v1/messages', { ...request, stream: true })),
    );
    const deltas = events
      .map(({ data }) => JSON.parse(data) as { delta?: { type: string; partial_json?: string } })
      .filter(({ delta }) => delta?.type === 'input_json_delta');
    expect(deltas.map(({ delta }) => delta?.partial_json)).toEqual(['{"city":"Bergen"}']);
  });

  it('ends with end_turn when the only call could not be read', async () => {
    const { anthropic } = client({
      script: () => ({
        events: [
          { type: 'tool_call', index: 0, id: 'toolu_1', name: 'weather', argumentsDelta: 'Oslo' },
        ],
        finishReason: 'tool_calls',
      }),
    });
    const message = await anthropic.messages.create({
      model: 'lfm2-350m',
      max_tokens: 64,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    expect(message).toMatchObject({
      content: [{ type: 'text', text: 'weather(Oslo)' }],
      stop_reason: 'end_turn',
    });
  });

  it('streams Anthropic’s events, which the SDK’s MessageStream accumulates', async () => {
    const { anthropic } = client();
    const stream = anthropic.messages.stream({
      model: 'lfm2-350m',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts).toEqual(['Hello', ',', ' world']);
    expect(message).toMatchObject({
      content: [{ type: 'text', text: 'Hello, world' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 7, output_tokens: 3 },
    });
  });

  it('writes the SSE events with their names', async () => {
    const { send } = client({ script: () => ({ tokens: ['Hi'] }) });
    const response = await send('/v1/messages', {
      model: 'lfm2-350m',
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(response.headers.get('Content-Type')).toBe('text/event-stream');
    const names = sseEvents(await readChunks(response)).map(({ event }) => `event: ${event}`);
    expect(names).toEqual([
      'event: message_start',
      'event: ping',
      'event: content_block_start',
      'event: content_block_delta',
      'event: content_block_stop',
      'event: message_delta',
      'event: message_stop',
    ]);
  });

  it('runs a tool_use / tool_result round trip with thinking, streamed and whole', async () => {
    const { anthropic, engine } = client({ script: weatherCall });
    const request = {
      model: 'lfm2-350m',
      max_tokens: 64,
      tools: [weatherTool],
      tool_choice: { type: 'tool' as const, name: 'weather', disable_parallel_tool_use: true },
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      messages: [{ role: 'user' as const, content: 'Weather in Oslo?' }],
    };
    const streamed = await anthropic.messages.stream(request).finalMessage();
    const whole = await anthropic.messages.create(request);
    for (const message of [streamed, whole]) {
      expect(message).toMatchObject({
        content: [
          { type: 'thinking', thinking: 'Need weather.' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
        ],
        stop_reason: 'tool_use',
      });
    }
    expect(engine.requests[0]).toMatchObject({
      tools: [
        { name: 'weather', description: 'Weather in a city', parameters: weatherTool.input_schema },
      ],
      toolChoice: { name: 'weather' },
      parallelToolCalls: false,
      thinking: true,
    });
    const final = await anthropic.messages.create({
      model: 'lfm2-350m',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: whole.content },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'text', text: 'Sunny' }],
            },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
    });
    expect(final.content).toEqual([{ type: 'text', text: 'Hello, world' }]);
    expect(chat(engine.requests[2])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        content: [],
        reasoning: 'Need weather.',
        toolCalls: [{ id: 'toolu_1', name: 'weather', arguments: '{"city":"Oslo"}' }],
      },
      {
        role: 'tool',
        content: [{ type: 'text', text: 'Sunny' }],
        toolCallId: 'toolu_1',
        toolName: 'weather',
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it('takes what Claude Code sends on every request: effort, context edits, system turns, loose tool schemas', async () => {
    const { send, engine } = client();
    const turn = (thinking: string, text: string) => ({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking, signature: 'sig' },
        { type: 'text', text },
      ],
    });
    const response = await send('/v1/messages', {
      model: 'lfm2-350m',
      max_tokens: 32000,
      system: 'You are an agent.',
      messages: [
        { role: 'user', content: 'One' },
        turn('First thought.', 'A'),
        { role: 'system', content: [{ type: 'text', text: 'Reminder: be brief.' }] },
        { role: 'user', content: 'Two' },
        turn('Second thought.', 'B'),
        { role: 'system', content: 'Mode: plan.' },
        { role: 'user', content: 'Three' },
      ],
      tools: [{ name: 'fetch', input_schema: agentSchema }],
      tool_choice: { type: 'auto' },
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high' },
      context_management: {
        edits: [
          { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } },
          { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 100000 } },
        ],
      },
      speed: 'fast',
      metadata: { user_id: 'u1' },
    });
    expect(response.status).toBe(200);
    const text = (value: string) => [{ type: 'text', text: value }];
    expect(engine.requests[0]).toEqual({
      model: 'lfm2-350m',
      input: {
        kind: 'chat',
        messages: [
          { role: 'system', content: text('You are an agent.') },
          { role: 'user', content: text('One') },
          { role: 'assistant', content: text('A') },
          { role: 'system', content: text('Reminder: be brief.') },
          { role: 'user', content: text('Two') },
          { role: 'assistant', content: text('B'), reasoning: 'Second thought.' },
          { role: 'system', content: text('Mode: plan.') },
          { role: 'user', content: text('Three') },
        ],
      },
      sampling: { maxTokens: 32000 },
      tools: [{ name: 'fetch', parameters: agentSchema }],
      toolChoice: 'auto',
    });
    const keepAll = await send('/v1/messages', {
      model: 'lfm2-350m',
      max_tokens: 8,
      messages: [turn('Kept.', 'A'), { role: 'user', content: 'Two' }],
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    });
    expect(keepAll.status).toBe(200);
    expect(chat(engine.requests[1])[0]).toMatchObject({ reasoning: 'Kept.' });
  });

  it('refuses keywords it cannot enforce only in a strict or forced tool', async () => {
    const { send } = client();
    const fetchTool = { name: 'fetch', input_schema: agentSchema };
    const cases: unknown[] = [
      { tools: [weatherTool, { ...fetchTool, strict: true }] },
      { tools: [weatherTool, fetchTool], tool_choice: { type: 'any' } },
      { tools: [weatherTool, fetchTool], tool_choice: { type: 'tool', name: 'fetch' } },
    ];
    for (const fields of cases) {
      const response = await send('/v1/messages', {
        model: 'lfm2-350m',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'Hi' }],
        ...(fields as object),
      });
      expect(response.status, JSON.stringify(fields)).toBe(400);
      const { error } = (await response.json()) as { error: { message: string } };
      expect(error.message).toMatch(/"uri" cannot be enforced.*The tool "fetch" is/);
    }
    const named = await send('/v1/messages', {
      model: 'lfm2-350m',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [weatherTool, fetchTool],
      tool_choice: { type: 'tool', name: 'weather' },
    });
    expect(named.status).toBe(200);
  });

  it('drops server and Anthropic-defined tools, and refuses a choice that forces one', async () => {
    const { send, engine } = client();
    const tools = [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
      { type: 'bash_20250124', name: 'bash' },
      { type: 'custom', ...weatherTool },
    ];
    const body = {
      model: 'lfm2-350m',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
    };
    expect((await send('/v1/messages', body)).status).toBe(200);
    expect(engine.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['weather']);
    const forced = await send('/v1/messages', {
      ...body,
      tool_choice: { type: 'tool', name: 'web_search' },
    });
    expect(forced.status).toBe(400);
    expect(await forced.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'Invalid `tool_choice.name`: expected a tool lmtab runs (one given with a JSON Schema of its arguments), received a choice that forces the tool "web_search" of type "web_search_20250305"; built-in and server tools are dropped from `tools`.',
      },
    });
  });

  it('counts tokens through the engine, tools and system included', async () => {
    const { anthropic, engine } = client({ script: weatherCall });
    const count = await anthropic.messages.countTokens({
      model: 'lfm2-350m',
      system: 'Be brief.',
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(count).toEqual({ input_tokens: 7 });
    expect(engine.requests[0]).toMatchObject({
      sampling: { maxTokens: 1 },
      tools: [{ name: 'weather' }],
      input: { kind: 'chat', messages: [{ role: 'system' }, { role: 'user' }] },
    });
  });

  it('answers bad input in Anthropic’s error shape with its statuses', async () => {
    const { send, anthropic } = client();
    const cases: [string, unknown, number, string, RegExp][] = [
      [
        '/v1/messages',
        { model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] },
        400,
        'invalid_request_error',
        /Missing required field `max_tokens`: expected an integer/,
      ],
      [
        '/v1/messages',
        {
          model: 'lfm2-350m',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'Hi' }],
          mcp_servers: [],
        },
        400,
        'invalid_request_error',
        /Unsupported field `mcp_servers`/,
      ],
      [
        '/v1/messages',
        {
          model: 'lfm2-350m',
          max_tokens: 8,
          messages: [{ role: 'user', content: [{ type: 'document' }] }],
        },
        400,
        'invalid_request_error',
        /`messages\[0\]\.content\[0\]\.type`: expected a block of type/,
      ],
      [
        '/v1/messages',
        {
          model: 'lfm2-350m',
          max_tokens: 8,
          messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x' }] }],
        },
        400,
        'invalid_request_error',
        /expected "text", "thinking" or "tool_use" in a assistant message/,
      ],
      [
        '/v1/messages',
        { model: 'nope', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] },
        404,
        'not_found_error',
        /nope/,
      ],
      [
        '/v1/messages/count_tokens',
        { model: 'lfm2-350m', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] },
        400,
        'invalid_request_error',
        /Unsupported field `max_tokens`/,
      ],
    ];
    for (const [path, body, status, type, message] of cases) {
      const response = await send(path, body, {
        headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'k' },
      });
      expect(response.status, JSON.stringify(body)).toBe(status);
      const answer = (await response.json()) as {
        type: string;
        error: { type: string; message: string };
      };
      expect(answer.type).toBe('error');
      expect(answer.error.type).toBe(type);
      expect(answer.error.message).toMatch(message);
    }
    const choice = await send('/v1/messages', {
      model: 'lfm2-350m',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [weatherTool],
      tool_choice: { type: 'tool', name: 'clock' },
    });
    expect(choice.status).toBe(400);
    expect(await choice.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'Invalid `tool_choice.name`: expected one of the tools ("weather"), received "clock".',
      },
    });
    const wrongMethod = await send('/v1/messages', undefined, { method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    await expect(
      anthropic.messages.create({
        model: 'nope',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      anthropic.messages.create({
        model: 'lfm2-350m',
        max_tokens: 0,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('ends a stream that fails midway with an error event the SDK throws', async () => {
    const { anthropic } = client({
      script: () => ({ failAfter: new LmtabError('engine_failure', 'The engine broke.') }),
    });
    const stream = anthropic.messages.stream({
      model: 'lfm2-350m',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    await expect(stream.finalMessage()).rejects.toMatchObject({
      error: { type: 'error', error: { type: 'api_error', message: 'The engine broke.' } },
    });
  });
});
