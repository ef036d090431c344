import { expect, test, type Page } from '@playwright/test';
import type OpenAI from 'openai';
import { weatherParameters } from '../support/tool-schemas.js';
import { importModel, installOpenAi, openApp } from './support/app.js';
import { expectValid } from './support/schema.js';

/** Parses `text` as JSON and validates it against `schema`, failing with ajv's errors. */
function expectValidJson(schema: object, text: string | null | undefined): unknown {
  const value: unknown = JSON.parse(text ?? 'null');
  expectValid(schema, value);
  return value;
}

const timeParameters = {
  type: 'object',
  properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } },
  required: ['zone'],
  additionalProperties: false,
};

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather forecast',
      parameters: weatherParameters,
    },
  },
  {
    type: 'function',
    function: { name: 'get_time', description: 'Current time', parameters: timeParameters },
  },
];

const parametersOf: Record<string, object> = {
  get_weather: weatherParameters,
  get_time: timeParameters,
};

const answerSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    count: { type: 'integer', minimum: 0, maximum: 99 },
    mood: { enum: ['calm', 'busy'] },
  },
  required: ['ok', 'count', 'mood'],
  additionalProperties: false,
};

const ask = [{ role: 'user' as const, content: 'What is the weather in Paris this week?' }];

/** Runs a chat completion with the page's bundled `openai` SDK (through the service worker). */
function pageChat(
  page: Page,
  body: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'model'>,
  model: string,
): Promise<OpenAI.ChatCompletion> {
  return page.evaluate(
    ({ body, model }) => window.openai.chat.completions.create({ ...body, model }),
    { body, model },
  );
}

test.describe
  .serial('tools, structured output, logprobs and reasoning through the service worker', () => {
  test.describe.configure({ timeout: 300_000 });
  let page: Page;
  let model: string;

  test.beforeAll(async ({ browser }) => {
    page = await browser.newPage();
    await openApp(page);
    await installOpenAi(page);
    model = await importModel(page, 'tiny-lfm2.gguf');
  });

  test.afterAll(async () => {
    await page.close();
  });

  test('tool_choice "required" and a named function always call, with arguments valid against the parameters', async () => {
    for (const tool_choice of [
      'required',
      { type: 'function', function: { name: 'get_time' } },
      { type: 'function', function: { name: 'get_weather' } },
    ] as const) {
      const answer = await pageChat(
        page,
        { messages: ask, tools, tool_choice, max_tokens: 300, temperature: 0.7, seed: 7 },
        model,
      );
      const choice = answer.choices[0];
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      const calls = choice.message.tool_calls ?? [];
      expect(calls).toHaveLength(1);
      const call = calls[0];
      if (call.type !== 'function') throw new Error(`expected a function call, got ${call.type}`);
      expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
      if (typeof tool_choice === 'object')
        expect(call.function.name).toBe(tool_choice.function.name);
      expectValidJson(parametersOf[call.function.name], call.function.arguments);
    }
  });

  test('tool_choice "none" never calls, and "auto" answers text or calls as the model chooses', async () => {
    const none = await pageChat(
      page,
      { messages: ask, tools, tool_choice: 'none', max_tokens: 24, temperature: 1, seed: 3 },
      model,
    );
    expect(none.choices[0].message.tool_calls).toBeUndefined();
    expect(none.choices[0].finish_reason).not.toBe('tool_calls');
    expect(none.choices[0].message.content).not.toContain('<|tool_call_start|>');
    const auto = await pageChat(
      page,
      { messages: ask, tools, tool_choice: 'auto', max_tokens: 24, temperature: 0 },
      model,
    );
    const choice = auto.choices[0];
    if (choice.finish_reason === 'tool_calls')
      expect(choice.message.tool_calls?.length).toBeGreaterThan(0);
    else expect(typeof choice.message.content).toBe('string');
  });

  test('streams a tool call as OpenAI does: id and name first, then pieces of the arguments', async () => {
    const result = await page.evaluate(
      async ({ model, tools, ask }) => {
        const stream = await window.openai.chat.completions.create({
          model,
          messages: ask,
          tools,
          tool_choice: { type: 'function', function: { name: 'get_weather' } },
          max_tokens: 300,
          temperature: 0,
          stream: true,
        });
        const deltas: unknown[] = [];
        let finish: string | null = null;
        for await (const chunk of stream) {
          for (const call of chunk.choices[0]?.delta.tool_calls ?? []) deltas.push(call);
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
        const runner = window.openai.chat.completions.stream({
          model,
          messages: ask,
          tools,
          tool_choice: 'required',
          max_tokens: 300,
          temperature: 0,
        });
        const final = await runner.finalChatCompletion();
        return { deltas, finish, final };
      },
      { model, tools, ask },
    );
    type Delta = {
      index: number;
      id?: string;
      type?: string;
      function: { name?: string; arguments?: string };
    };
    const deltas = result.deltas as Delta[];
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas[0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name: 'get_weather' },
    });
    expect(deltas[0].id).toMatch(/^call_/);
    expect(deltas.slice(1).every((d) => d.id === undefined && d.function.name === undefined)).toBe(
      true,
    );
    expect(result.finish).toBe('tool_calls');
    expectValidJson(weatherParameters, deltas.map((d) => d.function.arguments ?? '').join(''));
    // The SDK's own stream helper assembles the same shape.
    const call = result.final.choices[0].message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type === 'function')
      expectValidJson(parametersOf[call.function.name], call.function.arguments);
  });

  test('a full tool round trip: the call, its result as a tool message, then the answer; the history keeps the call', async () => {
    const first = await pageChat(
      page,
      { messages: ask, tools, tool_choice: 'required', max_tokens: 300, temperature: 0 },
      model,
    );
    const message = first.choices[0].message;
    const call = message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    const history: OpenAI.ChatCompletionMessageParam[] = [
      ...ask,
      { role: 'assistant', content: null, tool_calls: message.tool_calls },
      { role: 'tool', tool_call_id: call.id, content: [{ type: 'text', text: 'Sunny, 21 C' }] },
    ];
    const final = await pageChat(
      page,
      { messages: history, tools, max_tokens: 8, temperature: 0 },
      model,
    );
    expect(final.choices[0].finish_reason).not.toBeNull();
    expect(final.choices[0].message.role).toBe('assistant');
    // The template renders the assistant's call: the same history without it is shorter by its text.
    const withoutCall = await pageChat(
      page,
      {
        messages: [
          ...ask,
          { role: 'assistant', content: '' },
          { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 C' },
        ],
        tools,
        max_tokens: 1,
        temperature: 0,
      },
      model,
    );
    expect(final.usage!.prompt_tokens - withoutCall.usage!.prompt_tokens).toBeGreaterThanOrEqual(
      call.function.name.length,
    );
  });

  test('response_format json_schema and json_object answer JSON that validates', async () => {
    const schema = await pageChat(
      page,
      {
        messages: [{ role: 'user', content: 'Report.' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'report', schema: answerSchema, strict: true },
        },
        max_tokens: 300,
        temperature: 0,
      },
      model,
    );
    expect(schema.choices[0].finish_reason).toBe('stop');
    expectValidJson(answerSchema, schema.choices[0].message.content);
    const object = await pageChat(
      page,
      {
        messages: [{ role: 'user', content: 'Report as JSON.' }],
        response_format: { type: 'json_object' },
        max_tokens: 300,
        temperature: 0,
      },
      model,
    );
    expect(object.choices[0].finish_reason).toBe('stop');
    expectValidJson({ type: 'object' }, object.choices[0].message.content);
  });

  test('logprobs with top_logprobs, whole and streamed, and legacy logprobs on /v1/completions', async () => {
    // Alternatives are listed after sampling (see wllama-params.ts): temperature 1 keeps top-k's 40.
    const answer = await pageChat(
      page,
      { messages: ask, logprobs: true, top_logprobs: 3, max_tokens: 6, temperature: 1, seed: 5 },
      model,
    );
    const content = answer.choices[0].logprobs?.content ?? [];
    expect(content.length).toBeGreaterThan(0);
    for (const entry of content) {
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(Array.isArray(entry.bytes)).toBe(true);
      expect(entry.top_logprobs).toHaveLength(3);
      expect(entry.top_logprobs[0].logprob).toBeGreaterThanOrEqual(entry.top_logprobs[2].logprob);
    }
    const streamed = await page.evaluate(async (model) => {
      const stream = await window.openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Hi' }],
        logprobs: true,
        top_logprobs: 0,
        max_tokens: 5,
        temperature: 0,
        stream: true,
      });
      const entries: { top_logprobs: unknown[] }[] = [];
      for await (const chunk of stream)
        entries.push(...(chunk.choices[0]?.logprobs?.content ?? []));
      const legacy = await window.openai.completions.create({
        model,
        prompt: 'Once upon a time',
        logprobs: 2,
        max_tokens: 5,
        temperature: 0,
      });
      return { entries, legacy: legacy.choices[0] };
    }, model);
    expect(streamed.entries.length).toBeGreaterThan(0);
    expect(streamed.entries.every((e) => e.top_logprobs.length === 0)).toBe(true);
    const legacy = streamed.legacy.logprobs!;
    expect(legacy.tokens!.length).toBeGreaterThan(0);
    expect(legacy.token_logprobs).toHaveLength(legacy.tokens!.length);
    expect(legacy.text_offset![0]).toBe(0);
    expect(Object.keys(legacy.top_logprobs![0]).length).toBeLessThanOrEqual(2);
  });

  test('logprobs that name pieces of a character keep their bytes (the engine once failed on them)', async () => {
    // Byte-level vocabularies split characters across tokens, and 20 alternatives to each of 24
    // sampled tokens include such pieces. The engine's JSON failed on text that is not UTF-8
    // ("invalid UTF-8 byte"); it now leaves out what is not text, as llama-server does, and
    // `bytes` keeps every byte.
    const answer = await pageChat(
      page,
      { messages: ask, logprobs: true, top_logprobs: 20, max_tokens: 24, temperature: 1, seed: 11 },
      model,
    );
    const entries = (answer.choices[0].logprobs?.content ?? []).flatMap((entry) => [
      entry,
      ...entry.top_logprobs,
    ]);
    expect(entries.length).toBeGreaterThan(24);
    const strict = new TextDecoder('utf-8', { fatal: true });
    const pieces = entries.filter((entry) => {
      try {
        strict.decode(new Uint8Array(entry.bytes ?? []));
        return false;
      } catch {
        return true;
      }
    });
    expect(pieces.length).toBeGreaterThan(0);
    for (const piece of pieces) {
      expect(piece.bytes!.length).toBeGreaterThan(0);
      expect(piece.token === '' || piece.token.includes('\uFFFD'), piece.token).toBe(true);
    }
  });

  test('a thinking model answers its <think> text as reasoning_content; reasoning_effort "none" turns it off', async () => {
    const thinking = await importModel(page, 'tiny-lfm2-thinking.gguf');
    const answer = await pageChat(
      page,
      { messages: ask, max_tokens: 12, temperature: 0 },
      thinking,
    );
    const message = answer.choices[0].message as {
      content: string | null;
      reasoning_content?: string;
    };
    expect(message.reasoning_content?.length).toBeGreaterThan(0);
    expect(message.content ?? '').not.toContain('<think>');
    const off = await pageChat(
      page,
      { messages: ask, max_tokens: 12, temperature: 0, reasoning_effort: 'none' as never },
      thinking,
    );
    const plain = off.choices[0].message as { content: string | null; reasoning_content?: string };
    expect(plain.reasoning_content).toBeUndefined();
    expect(plain.content?.length).toBeGreaterThan(0);
  });

  test('refuses what the engine cannot enforce, naming the field', async () => {
    const refusals = await page.evaluate(async (model) => {
      const post = async (body: object) => {
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], ...body }),
        });
        return { status: response.status, body: await response.json() };
      };
      return [
        await post({
          response_format: {
            type: 'json_schema',
            json_schema: {
              name: 'x',
              schema: { type: 'object', properties: { n: { type: 'number', multipleOf: 2 } } },
            },
          },
        }),
        await post({ tools: [], tool_choice: { type: 'function', function: { name: 'nope' } } }),
        await post({ messages: [{ role: 'tool', content: 'x' }] }),
        await post({ max_tokens: 1e12 }),
        await post({ messages: [{ role: 'user', content: 'x '.repeat(6000) }], max_tokens: 1 }),
        await (async () => {
          const response = await fetch('/api/chat', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              model,
              messages: [{ role: 'user', content: 'Hi' }],
              options: { num_ctx: 1e9 },
              stream: false,
            }),
          });
          return { status: response.status, body: await response.json() };
        })(),
      ];
    }, model);
    expect(refusals[0].status).toBe(400);
    expect(refusals[0].body.error.param).toBe(
      'response_format.json_schema.schema.properties.n.multipleOf',
    );
    expect(refusals[0].body.error.message).toContain('"multipleOf"');
    expect(refusals[1].status).toBe(400);
    expect(refusals[1].body.error.param).toBe('tool_choice.function.name');
    expect(refusals[2].status).toBe(400);
    expect(refusals[2].body.error.param).toBe('messages[0].tool_call_id');
    expect(refusals[3].status).toBe(400);
    expect(refusals[3].body.error.param).toBe('max_tokens');
    expect(refusals[3].body.error.message).toContain('1,000,000,000,000 tokens');
    expect(refusals[4].status).toBe(400);
    expect(refusals[4].body.error.code).toBe('context_length_exceeded');
    expect(refusals[4].body.error.message).toMatch(
      /^The prompt is (\d{1,3}(,\d{3})+) tokens, which does not fit the context: tiny-lfm2 is loaded with 4,096 tokens of context/,
    );
    expect(refusals[5].status).toBe(400);
    expect(refusals[5].body.error).toContain('1,000,000,000');
  });
});
