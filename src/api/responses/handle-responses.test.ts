import type { ResponseInputItem } from 'openai/resources/responses/responses';
import OpenAI, { NotFoundError, BadRequestError } from 'openai';
import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import type { GenerateRequest } from '../../engine/index.js';
import { harnessNow, routerHarness } from '../testing/router-harness.js';
import type { RouterHarnessOptions } from '../testing/router-harness.js';

const client = (options: RouterHarnessOptions = {}) => {
  const harness = routerHarness(options);
  const openai = new OpenAI({
    apiKey: 'unused',
    baseURL: 'http://lmtab.test/v1',
    maxRetries: 0,
    fetch: (input, init) => harness.router.handle(new Request(input, init)),
  });
  return { ...harness, openai };
};

const weatherCall = (request: GenerateRequest) =>
  request.tools === undefined
    ? {}
    : {
        events: [
          {
            type: 'tool_call' as const,
            index: 0,
            id: 'call_1',
            name: 'weather',
            argumentsDelta: '',
          },
          { type: 'tool_call' as const, index: 0, argumentsDelta: '{"city":' },
          { type: 'tool_call' as const, index: 0, argumentsDelta: '"Oslo"}' },
        ],
        finishReason: 'tool_calls' as const,
      };

const weatherTool = {
  type: 'function' as const,
  name: 'weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

function chat(request: GenerateRequest | undefined) {
  if (request?.input.kind !== 'chat') throw new Error('expected a chat request');
  return request.input.messages;
}

describe('POST /v1/responses', () => {
  it('answers a Response object and converts the request to one generate request', async () => {
    const { openai, engine } = client();
    const response = await openai.responses.create({
      model: 'lfm2-350m',
      instructions: 'Be brief.',
      input: 'Hi',
      max_output_tokens: 50,
      temperature: 0.5,
      top_p: 0.9,
      metadata: { run: 'a' },
      text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } },
      reasoning: { effort: 'none' },
    });
    expect(response).toMatchObject({
      id: expect.stringMatching(/^resp_[0-9a-f]{24}$/) as unknown,
      object: 'response',
      created_at: harnessNow / 1000,
      status: 'completed',
      model: 'lfm2-350m',
      metadata: { run: 'a' },
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello, world', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 7,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 3,
        total_tokens: 10,
      },
    });
    expect(response.output_text).toBe('Hello, world');
    expect(engine.requests[0]).toEqual({
      model: 'lfm2-350m',
      input: {
        kind: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        ],
      },
      sampling: { temperature: 0.5, topP: 0.9, maxTokens: 50 },
      format: { type: 'json', schema: { type: 'object' } },
      thinking: false,
    });
  });

  it('streams the typed events the SDK helper accumulates, numbered in order', async () => {
    const { openai } = client({
      script: () => ({
        events: [
          { type: 'reasoning', text: 'Think' },
          { type: 'token', text: 'Hel' },
          { type: 'token', text: 'lo' },
        ],
      }),
    });
    const stream = openai.responses.stream({ model: 'lfm2-350m', input: 'Hi' });
    const types: string[] = [];
    const numbers: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
    }
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Hello');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(final.output[0]).toMatchObject({ content: [{ type: 'reasoning_text', text: 'Think' }] });
    expect(numbers).toEqual(types.map((_, i) => i));
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('answers an empty answer as one empty message, streamed and whole, as OpenAI does', async () => {
    const { openai } = client({ script: () => ({ tokens: [] }) });
    const whole = await openai.responses.create({ model: 'lfm2-350m', input: 'Hi' });
    const stream = openai.responses.stream({ model: 'lfm2-350m', input: 'Hi' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const streamed = await stream.finalResponse();
    for (const response of [whole, streamed]) {
      expect(response.output).toHaveLength(1);
      expect(response.output[0]).toMatchObject({
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', text: '', annotations: [], logprobs: [] }],
      });
      expect(response.output_text).toBe('');
    }
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('runs a function tool round trip, streamed and whole', async () => {
    const { openai, engine } = client({ script: weatherCall });
    const stream = openai.responses.stream({
      model: 'lfm2-350m',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Oslo?' }] }],
      tools: [weatherTool],
      tool_choice: { type: 'function', name: 'weather' },
    });
    const deltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (event) => deltas.push(event.delta));
    const first = await stream.finalResponse();
    expect(deltas).toEqual(['{"city":', '"Oslo"}']);
    expect(first.output).toMatchObject([
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      },
    ]);
    expect(engine.requests[0]).toMatchObject({
      tools: [{ name: 'weather', description: 'Weather in a city', strict: true }],
      toolChoice: { name: 'weather' },
    });
    const second = await openai.responses.create({
      model: 'lfm2-350m',
      input: [
        { role: 'user', content: 'Weather in Oslo?' },
        ...(first.output as ResponseInputItem[]),
        { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 21 C' },
      ],
    });
    expect(second.output_text).toBe('Hello, world');
    expect(chat(engine.requests[1])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        content: [],
        toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }],
      },
      {
        role: 'tool',
        content: [{ type: 'text', text: 'Sunny, 21 C' }],
        toolCallId: 'call_1',
        toolName: 'weather',
      },
    ]);
  });

  it('continues a stored conversation with previous_response_id, and GET and DELETE find it', async () => {
    const { openai, engine } = client();
    const first = await openai.responses.create({
      model: 'lfm2-350m',
      instructions: 'First only.',
      input: 'My name is Ada.',
    });
    const second = await openai.responses.create({
      model: 'lfm2-350m',
      input: 'What is my name?',
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(chat(engine.requests[1])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'My name is Ada.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello, world' }] },
      { role: 'user', content: [{ type: 'text', text: 'What is my name?' }] },
    ]);
    expect(await openai.responses.retrieve(second.id)).toEqual(second);
    await openai.responses.delete(second.id);
    await expect(openai.responses.retrieve(second.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(openai.responses.delete(second.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('keeps nothing with store false', async () => {
    const { openai } = client();
    const response = await openai.responses.create({
      model: 'lfm2-350m',
      input: 'Hi',
      store: false,
    });
    expect(response).toMatchObject({ store: false });
    await expect(openai.responses.retrieve(response.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers bad input in OpenAI’s error shape, naming the field', async () => {
    const { send } = client();
    const cases: [unknown, number, RegExp, string | null][] = [
      [
        { model: 'lfm2-350m', input: 'Hi', background: true },
        400,
        /Unsupported field `background`/,
        'background',
      ],
      [{ model: 'lfm2-350m' }, 400, /Missing required field `input`/, 'input'],
      [
        {
          model: 'lfm2-350m',
          input: 'Hi',
          tools: [{ type: 'web_search' }],
          tool_choice: 'required',
        },
        400,
        /needs at least one tool/,
        'tool_choice',
      ],
      [
        {
          model: 'lfm2-350m',
          input: 'Hi',
          tools: [weatherTool, { ...weatherTool, strict: false }],
        },
        400,
        /`tools\[1\]\.name`: expected a name no other function tool has/,
        'tools[1].name',
      ],
      [
        {
          model: 'lfm2-350m',
          input: 'Hi',
          tools: [
            {
              type: 'namespace',
              name: 'web',
              description: 'Fetching',
              tools: [
                {
                  type: 'function',
                  name: 'fetch',
                  parameters: { type: 'object', properties: { url: { format: 'uri' } } },
                  strict: true,
                },
              ],
            },
          ],
        },
        400,
        /"uri" cannot be enforced.* The tool "fetch" is `strict`/,
        'tools[0].tools[0].parameters.properties.url.format',
      ],
      [
        { model: 'lfm2-350m', input: [{ type: 'item_reference', id: 'x' }] },
        400,
        /`input\[0\]\.type`: expected an item of type "message"/,
        'input[0].type',
      ],
      [
        { model: 'lfm2-350m', input: 'Hi', previous_response_id: 'resp_nope' },
        404,
        /No stored response with id "resp_nope"/,
        'previous_response_id',
      ],
      [{ model: 'nope', input: 'Hi' }, 404, /nope/, 'model'],
      [
        { model: 'lfm2-350m', input: 'Hi', tool_choice: 'required' },
        400,
        /needs at least one tool/,
        'tool_choice',
      ],
    ];
    for (const [body, status, message, param] of cases) {
      const response = await send('/v1/responses', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      const { error } = (await response.json()) as { error: { message: string; param: string } };
      expect(error.message).toMatch(message);
      expect(error.param).toBe(param);
    }
    const { openai } = client();
    await expect(
      openai.responses.create({ model: 'lfm2-350m', input: 'Hi', conversation: 'conv_1' }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('accepts the hints and bookkeeping Codex and the Agents SDK send, changing nothing', async () => {
    const { send, engine } = client();
    for (const include of [[], ['reasoning.encrypted_content']]) {
      const response = await send('/v1/responses', {
        model: 'lfm2-350m',
        input: 'Hi',
        include,
        client_metadata: { originator: 'codex_exec' },
        service_tier: 'priority',
        prompt_cache_key: 'session-1',
        prompt_cache_retention: '24h',
        store: false,
        user: 'u1',
        metadata: { run: 'a' },
        safety_identifier: 's',
        text: { verbosity: 'low' },
      });
      expect(response.status, JSON.stringify(include)).toBe(200);
    }
    expect(engine.requests[1]).toEqual({
      model: 'lfm2-350m',
      input: {
        kind: 'chat',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      },
      sampling: {},
    });
  });

  it('drops built-in tools, and refuses a choice that forces one', async () => {
    const { openai, send, engine } = client();
    const builtIns = [
      { type: 'web_search' },
      { type: 'web_search_preview' },
      { type: 'file_search', vector_store_ids: ['vs_1'] },
      { type: 'code_interpreter', container: { type: 'auto' } },
      { type: 'image_generation' },
      { type: 'local_shell' },
      { type: 'computer_use_preview', display_width: 1, display_height: 1, environment: 'linux' },
      { type: 'mcp', server_label: 'docs' },
      { type: 'custom', name: 'apply_patch' },
    ];
    const response = await openai.responses.create({
      model: 'lfm2-350m',
      input: 'Hi',
      tools: [...builtIns, weatherTool] as never,
    });
    expect(engine.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['weather']);
    expect(response.tools).toEqual([{ ...weatherTool }]);
    const forced = await send('/v1/responses', {
      model: 'lfm2-350m',
      input: 'Hi',
      tools: [{ type: 'web_search_preview' }, weatherTool],
      tool_choice: { type: 'web_search_preview' },
    });
    expect(forced.status).toBe(400);
    expect(await forced.json()).toEqual({
      error: {
        message:
          'Invalid `tool_choice`: expected a tool lmtab runs (one given with a JSON Schema of its arguments), received a choice that forces the built-in tool of type "web_search_preview"; built-in and server tools are dropped from `tools`.',
        type: 'invalid_request_error',
        param: 'tool_choice',
        code: 'invalid_request',
      },
    });
  });

  it('flattens the function tools of a namespace; a call to one names its namespace', async () => {
    const { openai, engine } = client({ script: weatherCall });
    const crm = {
      type: 'namespace',
      name: 'crm',
      description: 'Customer records',
      tools: [
        { ...weatherTool, strict: false },
        { type: 'custom', name: 'notes' },
      ],
    };
    const request = {
      model: 'lfm2-350m',
      input: 'Weather in Oslo?',
      tools: [crm, { type: 'function', name: 'clock', parameters: null }],
    } as never;
    const whole = await openai.responses.create(request);
    expect(engine.requests[0]?.tools).toEqual([
      {
        name: 'weather',
        description: 'Weather in a city',
        parameters: weatherTool.parameters,
        strict: false,
      },
      { name: 'clock', parameters: { type: 'object', properties: {} } },
    ]);
    expect(whole.output).toMatchObject([
      { type: 'function_call', name: 'weather', namespace: 'crm', call_id: 'call_1' },
    ]);
    expect(whole.tools[0]).toEqual({
      type: 'namespace',
      name: 'crm',
      description: 'Customer records',
      tools: [{ ...weatherTool, strict: false }],
    });
    const stream = openai.responses.stream(request);
    const added: unknown[] = [];
    stream.on('response.output_item.added', (event) => added.push(event.item));
    await stream.finalResponse();
    expect(added).toMatchObject([{ type: 'function_call', name: 'weather', namespace: 'crm' }]);
  });

  it('ends a stream that fails midway with error and response.failed', async () => {
    const { openai } = client({
      script: () => ({ failAfter: new LmtabError('engine_failure', 'The engine broke.') }),
    });
    const stream = await openai.responses.create({ model: 'lfm2-350m', input: 'Hi', stream: true });
    const tail: unknown[] = [];
    for await (const event of stream) tail.push(event);
    expect(tail.slice(-2)).toMatchObject([
      { type: 'error', code: 'engine_failure', message: 'The engine broke.' },
      {
        type: 'response.failed',
        response: { status: 'failed', error: { message: 'The engine broke.' } },
      },
    ]);
  });
});
