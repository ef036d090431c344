import Anthropic, { NotFoundError as AnthropicNotFound } from '@anthropic-ai/sdk';
import { type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import { Ajv } from 'ajv';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import OpenAI, { NotFoundError } from 'openai';
import type { Relay } from '../../src/relay/index.js';
import { importModel, installAnthropic, installOpenAi, openApp } from './support/app.js';
import { weatherParameters } from '../support/tool-schemas.js';
import {
  openEngineTab,
  relayPorts,
  reloadEngineTab,
  startRelay,
  type EngineTab,
} from './support/relay.js';

const model = 'tiny-lfm2';
const personSchema = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, n: { type: 'integer', minimum: 0, maximum: 99 } },
  required: ['ok', 'n'],
  additionalProperties: false,
};

async function reloadApp(page: Page): Promise<void> {
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await installOpenAi(page);
  await installAnthropic(page);
}

test.describe('Responses and Messages APIs in the page, through the service worker', () => {
  test.beforeEach(async ({ page }) => {
    await openApp(page);
    await installOpenAi(page);
    await installAnthropic(page);
  });

  test('responses.create plain and streamed; previous_response_id continues across a reload', async ({
    page,
  }) => {
    await importModel(page, 'tiny-lfm2.gguf');
    const first = await page.evaluate(async (model) => {
      const plain = await window.openai.responses.create({
        model,
        instructions: 'Answer briefly.',
        input: 'My name is Ada.',
        max_output_tokens: 6,
        temperature: 0,
      });
      const stream = window.openai.responses.stream({ model, input: 'Hi', max_output_tokens: 6 });
      const events: { type: string; sequence: number }[] = [];
      for await (const event of stream) {
        events.push({ type: event.type, sequence: event.sequence_number });
      }
      return { plain, events, streamed: await stream.finalResponse() };
    }, model);
    expect(first.plain).toMatchObject({ object: 'response', model, store: true });
    expect(['completed', 'incomplete']).toContain(first.plain.status);
    expect(first.plain.id).toMatch(/^resp_/);
    expect(first.plain.output_text.length).toBeGreaterThan(0);
    expect(first.plain.usage?.total_tokens).toBe(
      (first.plain.usage?.input_tokens ?? 0) + (first.plain.usage?.output_tokens ?? 0),
    );
    expect(first.events.map((e) => e.sequence)).toEqual(first.events.map((_, i) => i));
    expect(first.events.slice(0, 4).map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(first.events.some((e) => e.type === 'response.output_text.delta')).toBe(true);
    expect(first.streamed.output_text.length).toBeGreaterThan(0);

    await reloadApp(page);
    const later = await page.evaluate(
      async ([model, id]) => {
        const next = await window.openai.responses.create({
          model,
          input: 'What is my name?',
          previous_response_id: id,
          max_output_tokens: 4,
        });
        const stored = await window.openai.responses.retrieve(id);
        await window.openai.responses.delete(id);
        const gone = await window.openai.responses
          .retrieve(id)
          .catch((e: { status: number }) => e.status);
        return { next, stored, gone };
      },
      [model, first.plain.id] as const,
    );
    expect(later.next.previous_response_id).toBe(first.plain.id);
    // The stored turn (the question and its answer) is part of the prompt again.
    expect(later.next.usage?.input_tokens).toBeGreaterThan(
      (first.plain.usage?.input_tokens ?? 0) + (first.plain.usage?.output_tokens ?? 0) - 4,
    );
    expect(later.stored).toEqual(first.plain);
    expect(later.gone).toBe(404);
  });

  test('responses: a function tool round trip and a json_schema answer that validates', async ({
    page,
  }) => {
    await importModel(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(
      async ([model, parameters, schema]) => {
        const tools = [
          {
            type: 'function' as const,
            name: 'weather',
            description: 'Weather',
            parameters,
            strict: true,
          },
        ];
        const call = await window.openai.responses.create({
          model,
          input: 'Weather in Oslo?',
          tools,
          tool_choice: 'required',
          max_output_tokens: 300,
        });
        const fc = call.output.find((item) => item.type === 'function_call');
        const answer = await window.openai.responses.create({
          model,
          input: [
            { role: 'user', content: 'Weather in Oslo?' },
            ...(call.output as ResponseInputItem[]),
            { type: 'function_call_output', call_id: fc?.call_id ?? '', output: 'Sunny' },
          ],
          tools,
          tool_choice: 'none',
          max_output_tokens: 6,
        });
        const structured = await window.openai.responses.create({
          model,
          input: 'A person',
          text: { format: { type: 'json_schema', name: 'person', schema, strict: true } },
          max_output_tokens: 300,
        });
        return { call, answer, structured: structured.output_text };
      },
      [model, weatherParameters, personSchema] as const,
    );
    const fc = result.call.output.find((item) => item.type === 'function_call');
    expect(fc).toMatchObject({ type: 'function_call', name: 'weather', status: 'completed' });
    const ajv = new Ajv();
    expect(
      ajv.validate(weatherParameters, JSON.parse(fc?.type === 'function_call' ? fc.arguments : '')),
    ).toBe(true);
    expect(result.answer.output.every((item) => item.type !== 'function_call')).toBe(true);
    expect(ajv.validate(personSchema, JSON.parse(result.structured))).toBe(true);
  });

  test('messages.create, messages.stream, a tool_use round trip and countTokens', async ({
    page,
  }) => {
    await importModel(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(
      async ([model, parameters]) => {
        const messages = [{ role: 'user' as const, content: 'Hello there' }];
        const plain = await window.anthropic.messages.create({ model, max_tokens: 6, messages });
        const stream = window.anthropic.messages.stream({ model, max_tokens: 6, messages });
        const texts: string[] = [];
        stream.on('text', (text) => texts.push(text));
        const streamed = await stream.finalMessage();
        const count = await window.anthropic.messages.countTokens({ model, messages });
        const tools = [
          {
            name: 'weather',
            description: 'Weather',
            input_schema: parameters as { type: 'object' },
          },
        ];
        const call = await window.anthropic.messages.create({
          model,
          max_tokens: 300,
          messages: [{ role: 'user', content: 'Weather in Oslo?' }],
          tools,
          tool_choice: { type: 'any' },
        });
        const use = call.content.find((block) => block.type === 'tool_use');
        const answer = await window.anthropic.messages.create({
          model,
          max_tokens: 6,
          tools,
          tool_choice: { type: 'none' },
          messages: [
            { role: 'user', content: 'Weather in Oslo?' },
            { role: 'assistant', content: call.content },
            {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: use?.type === 'tool_use' ? use.id : '',
                  content: 'Sunny',
                },
              ],
            },
          ],
        });
        return { plain, streamed, texts, count, call, answer };
      },
      [model, weatherParameters] as const,
    );
    expect(result.plain).toMatchObject({ type: 'message', role: 'assistant', model });
    expect(result.plain.id).toMatch(/^msg_/);
    expect(['end_turn', 'max_tokens']).toContain(result.plain.stop_reason);
    expect(result.plain.content[0]).toMatchObject({ type: 'text' });
    expect(result.texts.join('')).toBe(
      result.streamed.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
    );
    // The count is the prompt as the model reads it: what the answer's usage reports.
    const usage = result.plain.usage;
    expect(result.count.input_tokens).toBe(
      usage.input_tokens + (usage.cache_read_input_tokens ?? 0),
    );
    expect(result.count.input_tokens).toBeGreaterThan(3);
    expect(result.call.stop_reason).toBe('tool_use');
    const use = result.call.content.find((block) => block.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: 'weather' });
    expect(new Ajv().validate(weatherParameters, use?.type === 'tool_use' ? use.input : null)).toBe(
      true,
    );
    expect(result.answer.content.every((block) => block.type !== 'tool_use')).toBe(true);
  });

  test('stop_sequences: the answer ends before the one that matched, named in stop_sequence', async ({
    page,
  }) => {
    await importModel(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(async (model) => {
      // Greedy, so that both answers are the same text (the SDK's types no longer list
      // temperature; the API takes it).
      const base = {
        model,
        max_tokens: 24,
        temperature: 0,
        messages: [{ role: 'user' as const, content: 'Count with me' }],
      };
      const ask = (extra: object) => window.anthropic.messages.create({ ...base, ...extra });
      const long = await ask({});
      const text = long.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      // Taken from the middle of the greedy answer, so the same answer meets it there.
      const stop = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 2);
      const stopped = await ask({ stop_sequences: ['never-appears', stop] });
      const stream = window.anthropic.messages.stream({ ...base, stop_sequences: [stop] });
      const streamed = await stream.finalMessage();
      return { long, text, stop, stopped, streamed };
    }, model);
    expect(result.long.stop_reason).toBe('max_tokens');
    expect(result.long.stop_sequence).toBeNull();
    expect(result.stop.length).toBe(2);
    for (const answer of [result.stopped, result.streamed]) {
      expect(answer).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: result.stop });
      // Where the stop text opens the answer, nothing is left: no text block at all.
      const text = answer.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      expect(text).toBe(result.text.slice(0, result.text.indexOf(result.stop)));
    }
  });

  test('bad inputs get each protocol’s error shape', async ({ page }) => {
    await importModel(page, 'tiny-lfm2.gguf');
    const answers = await page.evaluate(async (model) => {
      const post = async (path: string, body: unknown) => {
        const response = await fetch(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as unknown };
      };
      return [
        await post('/v1/messages', { model, messages: [{ role: 'user', content: 'Hi' }] }),
        await post('/v1/messages', {
          model: 'nope',
          max_tokens: 4,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
        await post('/v1/messages/count_tokens', { model, messages: [] }),
        await post('/v1/responses', { model, input: 'Hi', background: true }),
        await post('/v1/responses', { model, input: 'Hi', previous_response_id: 'resp_nope' }),
      ];
    }, model);
    expect(answers[0]).toEqual({
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'Missing required field `max_tokens`: expected an integer.',
        },
      },
    });
    expect(answers[1]).toMatchObject({
      status: 404,
      body: { type: 'error', error: { type: 'not_found_error' } },
    });
    expect(answers[2]).toMatchObject({
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('`messages`') },
      },
    });
    expect(answers[3]).toMatchObject({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          param: 'background',
          message: expect.stringContaining('Unsupported field `background`'),
        },
      },
    });
    expect(answers[4]).toMatchObject({
      status: 404,
      body: { error: { type: 'not_found_error', param: 'previous_response_id' } },
    });
  });
});

test.describe.serial('Responses and Messages APIs through the relay, with Node clients', () => {
  let relay: Relay;
  let tab: EngineTab;
  let openai: OpenAI;
  let anthropic: Anthropic;

  test.beforeAll(async () => {
    relay = await startRelay(relayPorts.protocols);
    openai = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: relay.url, apiKey: 'any', maxRetries: 0 });
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay.close();
  });

  test('without an engine tab, /v1/messages answers 503 overloaded_error in Anthropic’s shape', async () => {
    const response = await fetch(`${relay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-api-key': 'any' },
      body: JSON.stringify({ model, max_tokens: 4, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error' },
    });
  });

  test('openai: responses plain, streamed, a tool round trip, and previous_response_id across a reload', async ({
    browser,
  }) => {
    tab = await openEngineTab(browser, relay, [{ file: 'tiny-lfm2.gguf' }]);
    const plain = await openai.responses.create({
      model,
      input: 'My name is Ada.',
      max_output_tokens: 6,
      temperature: 0,
    });
    expect(plain).toMatchObject({ object: 'response', model });
    expect(plain.output_text.length).toBeGreaterThan(0);

    const stream = openai.responses.stream({
      model,
      input: 'Hi',
      max_output_tokens: 6,
      temperature: 0,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(['response.completed', 'response.incomplete']).toContain(types.at(-1));
    expect((await stream.finalResponse()).output_text.length).toBeGreaterThan(0);

    const tools = [
      { type: 'function' as const, name: 'weather', parameters: weatherParameters, strict: true },
    ];
    const call = await openai.responses.create({
      model,
      input: 'Weather in Oslo?',
      tools,
      tool_choice: { type: 'function', name: 'weather' },
      max_output_tokens: 300,
    });
    const fc = call.output.find((item) => item.type === 'function_call');
    if (fc?.type !== 'function_call') throw new Error('expected a function call');
    expect(new Ajv().validate(weatherParameters, JSON.parse(fc.arguments))).toBe(true);
    const answer = await openai.responses.create({
      model,
      previous_response_id: call.id,
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: 'Sunny' }],
      tools,
      tool_choice: 'none',
      max_output_tokens: 6,
    });
    expect(answer.output.every((item) => item.type !== 'function_call')).toBe(true);

    await reloadEngineTab(tab.page, relay);
    const next = await openai.responses.create({
      model,
      input: 'What is my name?',
      previous_response_id: plain.id,
      max_output_tokens: 4,
    });
    expect(next.previous_response_id).toBe(plain.id);
    expect(await openai.responses.retrieve(plain.id)).toEqual(plain);
    await openai.responses.delete(plain.id);
    await expect(openai.responses.retrieve(plain.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('anthropic: messages.create, messages.stream, a tool_use round trip, countTokens and errors', async () => {
    const messages = [{ role: 'user' as const, content: 'Hello there' }];
    const plain = await anthropic.messages.create({ model, max_tokens: 6, messages });
    expect(plain).toMatchObject({ type: 'message', role: 'assistant', model });
    const count = await anthropic.messages.countTokens({ model, messages });
    expect(count.input_tokens).toBe(
      plain.usage.input_tokens + (plain.usage.cache_read_input_tokens ?? 0),
    );

    const stream = anthropic.messages.stream({ model, max_tokens: 6, messages });
    const events: string[] = [];
    stream.on('streamEvent', (event) => events.push(event.type));
    const streamed = await stream.finalMessage();
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(streamed.usage.output_tokens).toBeGreaterThan(0);

    const tools = [{ name: 'weather', input_schema: weatherParameters as { type: 'object' } }];
    const call = await anthropic.messages
      .stream({
        model,
        max_tokens: 300,
        tools,
        tool_choice: { type: 'tool', name: 'weather' },
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      })
      .finalMessage();
    expect(call.stop_reason).toBe('tool_use');
    const use = call.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(new Ajv().validate(weatherParameters, use.input)).toBe(true);
    const answer = await anthropic.messages.create({
      model,
      max_tokens: 6,
      tools,
      tool_choice: { type: 'none' },
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: call.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny' }] },
      ],
    });
    expect(answer.content.every((block) => block.type !== 'tool_use')).toBe(true);

    await expect(
      anthropic.messages.create({ model: 'nope', max_tokens: 4, messages }),
    ).rejects.toBeInstanceOf(AnthropicNotFound);
    const bad = await fetch(`${relay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model, messages }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
  });
});
