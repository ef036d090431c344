import { expect, test } from '@playwright/test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, jsonSchema, streamText, tool } from 'ai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { z } from 'zod';
import type { Relay } from '../../src/relay/index.js';
import { weatherParameters } from '../support/tool-schemas.js';
import { openEngineTab, relayPorts, startRelay, type EngineTab } from './support/relay.js';
import { expectValid } from './support/schema.js';

const reportSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    mood: { type: 'string', enum: ['calm', 'busy'] },
  },
  required: ['ok', 'mood'],
  additionalProperties: false,
};

const report = z.object({ ok: z.boolean(), mood: z.enum(['calm', 'busy']) });

const question = 'What is the weather in Paris this week?';

test.describe.serial('tools and structured output through the relay, with Node clients', () => {
  test.describe.configure({ timeout: 300_000 });
  let relay: Relay;
  let tab: EngineTab;
  const model = 'tiny-lfm2';

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(relayPorts.tools);
    tab = await openEngineTab(browser, relay, [
      { file: 'tiny-lfm2.gguf' },
      { file: 'tiny-lfm2-thinking.gguf' },
    ]);
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test(
    'openai: required call, tool round trip, streamed call, json_schema and logprobs',
    { tag: '@smoke' },
    async () => {
      const client = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any', maxRetries: 0 });
      const tools: OpenAI.ChatCompletionTool[] = [
        { type: 'function', function: { name: 'get_weather', parameters: weatherParameters } },
      ];
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
      const first = await client.chat.completions.create({
        model,
        messages,
        tools,
        tool_choice: 'required',
        max_tokens: 300,
        temperature: 0,
      });
      expect(first.choices[0].finish_reason).toBe('tool_calls');
      const call = first.choices[0].message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error('expected a function call');
      expectValid(weatherParameters, JSON.parse(call.function.arguments));
      messages.push(first.choices[0].message, {
        role: 'tool',
        tool_call_id: call.id,
        content: 'Sunny, 21 C',
      });
      const final = await client.chat.completions.create({
        model,
        messages,
        tools,
        tool_choice: 'none',
        max_tokens: 8,
        temperature: 0,
      });
      expect(final.choices[0].message.tool_calls).toBeUndefined();
      expect(typeof final.choices[0].message.content).toBe('string');

      const stream = client.chat.completions.stream({
        model,
        messages: [{ role: 'user', content: question }],
        tools,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        max_tokens: 300,
        temperature: 0,
      });
      const streamed = await stream.finalChatCompletion();
      const streamedCall = streamed.choices[0].message.tool_calls?.[0];
      if (streamedCall?.type !== 'function') throw new Error('expected a streamed function call');
      expect(streamedCall.function.name).toBe('get_weather');
      expectValid(weatherParameters, JSON.parse(streamedCall.function.arguments));

      const structured = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Report.' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'report', schema: reportSchema, strict: true },
        },
        logprobs: true,
        top_logprobs: 2,
        max_tokens: 300,
        temperature: 0,
      });
      expectValid(reportSchema, JSON.parse(structured.choices[0].message.content ?? ''));
      const logprobs = structured.choices[0].logprobs?.content ?? [];
      expect(logprobs.length).toBeGreaterThan(0);
      // Alternatives are taken after sampling: where the schema's grammar admits one token, it is
      // the only one listed.
      expect(logprobs.every((entry) => entry.logprob <= 0)).toBe(true);
      expect(logprobs.every((e) => e.top_logprobs.length >= 1 && e.top_logprobs.length <= 2)).toBe(
        true,
      );
    },
  );

  test('Vercel AI SDK: generateObject with a zod schema, generateText and streamText with a required tool', async () => {
    const provider = createOpenAICompatible({
      name: 'lmtab',
      baseURL: `${relay.url}/v1`,
      apiKey: 'any',
      supportsStructuredOutputs: true,
    });
    const { object } = await generateObject({
      model: provider(model),
      schema: report,
      prompt: 'Report.',
      temperature: 0,
      maxOutputTokens: 300,
      maxRetries: 0,
    });
    expect(report.parse(object)).toEqual(object);
    expectValid(reportSchema, object);

    const weather = tool({
      description: 'Weather forecast',
      inputSchema: jsonSchema<{ city: string; days: number }>(weatherParameters as never),
    });
    const text = await generateText({
      model: provider(model),
      tools: { get_weather: weather },
      toolChoice: 'required',
      prompt: question,
      temperature: 0,
      maxOutputTokens: 300,
      maxRetries: 0,
    });
    expect(text.finishReason).toBe('tool-calls');
    expect(text.toolCalls).toHaveLength(1);
    expect(text.toolCalls[0].toolName).toBe('get_weather');
    expectValid(weatherParameters, text.toolCalls[0].input);

    const streamed = streamText({
      model: provider(model),
      tools: { get_weather: weather },
      toolChoice: 'required',
      prompt: question,
      temperature: 0,
      maxOutputTokens: 300,
      maxRetries: 0,
    });
    const calls = await streamed.toolCalls;
    expect(calls).toHaveLength(1);
    expectValid(weatherParameters, calls[0].input);
    expect(await streamed.finishReason).toBe('tool-calls');
  });

  test('LangChain: withStructuredOutput, bindTools with tool_choice, and a round trip with ToolMessage', async () => {
    const chat = new ChatOpenAI({
      model,
      apiKey: 'any',
      temperature: 0,
      maxTokens: 300,
      maxRetries: 0,
      configuration: { baseURL: `${relay.url}/v1` },
    });
    const structured = await chat
      .withStructuredOutput(report, { name: 'report' })
      .invoke('Report.');
    expectValid(reportSchema, structured);

    const weatherTool = {
      type: 'function' as const,
      function: { name: 'get_weather', description: 'Weather', parameters: weatherParameters },
    };
    const bound = chat.bindTools([weatherTool], { tool_choice: 'get_weather' });
    const called = await bound.invoke([new HumanMessage(question)]);
    expect(called.tool_calls).toHaveLength(1);
    const call = called.tool_calls![0];
    expect(call.name).toBe('get_weather');
    expectValid(weatherParameters, call.args);

    const answer = await chat
      .bindTools([weatherTool], { tool_choice: 'none' })
      .invoke([
        new HumanMessage(question),
        new AIMessage({ content: '', tool_calls: [call] }),
        new ToolMessage({ content: 'Sunny, 21 C', tool_call_id: call.id! }),
      ]);
    expect(answer.tool_calls ?? []).toHaveLength(0);
    expect(typeof answer.content).toBe('string');
  });

  test('ollama: format with a JSON Schema, tools with arguments as an object, tool messages and think', async () => {
    const ollama = new Ollama({ host: relay.url });
    const formatted = await ollama.chat({
      model,
      messages: [{ role: 'user', content: 'Report.' }],
      format: reportSchema,
      options: { temperature: 0, num_predict: 300 },
    });
    expectValid(reportSchema, JSON.parse(formatted.message.content));

    const generated = await ollama.generate({
      model,
      prompt: 'Report.',
      format: reportSchema,
      options: { temperature: 0, num_predict: 300 },
    });
    expectValid(reportSchema, JSON.parse(generated.response ?? ''));

    // Ollama has no tool_choice: the model chooses, so the call is checked only when it calls.
    const tools = [
      { type: 'function', function: { name: 'get_weather', parameters: weatherParameters } },
    ];
    const withTools = await ollama.chat({
      model,
      messages: [{ role: 'user', content: question }],
      tools,
      options: { temperature: 0, num_predict: 16 },
    });
    for (const call of withTools.message.tool_calls ?? []) {
      expect(call.function.name).toBe('get_weather');
      expect(typeof call.function.arguments).toBe('object');
    }
    const answered = await ollama.chat({
      model,
      messages: [
        { role: 'user', content: question },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { function: { name: 'get_weather', arguments: { city: 'Paris', days: 2 } } },
          ],
        },
        { role: 'tool', content: 'Sunny, 21 C', tool_name: 'get_weather' },
      ],
      tools,
      options: { temperature: 0, num_predict: 4 },
    });
    expect(answered.done).toBe(true);

    const show = await ollama.show({ model: 'tiny-lfm2-thinking' });
    expect(show.capabilities).toEqual(expect.arrayContaining(['completion', 'tools', 'thinking']));
    const thought = await ollama.chat({
      model: 'tiny-lfm2-thinking',
      messages: [{ role: 'user', content: question }],
      think: true,
      options: { temperature: 0, num_predict: 12 },
    });
    expect(thought.message.thinking?.length).toBeGreaterThan(0);
    const streamedThought = await ollama.generate({
      model: 'tiny-lfm2-thinking',
      prompt: question,
      think: true,
      stream: true,
      options: { temperature: 0, num_predict: 8 },
    });
    let thinking = '';
    for await (const part of streamedThought) thinking += part.thinking ?? '';
    expect(thinking.length).toBeGreaterThan(0);
    const plain = await ollama.chat({
      model: 'tiny-lfm2-thinking',
      messages: [{ role: 'user', content: question }],
      think: false,
      options: { temperature: 0, num_predict: 8 },
    });
    expect(plain.message.thinking).toBeUndefined();
  });

  test('json_object, streamed reasoning_content (openai) and logprobs (ollama) through the relay', async () => {
    const client = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any', maxRetries: 0 });
    const object = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Report as JSON.' }],
      response_format: { type: 'json_object' },
      max_tokens: 300,
      temperature: 0,
    });
    expect(object.choices[0].finish_reason).toBe('stop');
    expectValid({ type: 'object' }, JSON.parse(object.choices[0].message.content ?? ''));

    const stream = await client.chat.completions.create({
      model: 'tiny-lfm2-thinking',
      messages: [{ role: 'user', content: question }],
      max_tokens: 12,
      temperature: 0,
      stream: true,
    });
    let reasoning = '';
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string };
      reasoning += delta?.reasoning_content ?? '';
      content += delta?.content ?? '';
    }
    // The opening <think> is read as the start of reasoning, not answered as text. (Random
    // weights may pick <think> again inside the reasoning; that stays reasoning.)
    expect(reasoning.length).toBeGreaterThan(0);
    expect(content).not.toContain('<think>');

    const ollama = new Ollama({ host: relay.url });
    const chat = await ollama.chat({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      logprobs: true,
      top_logprobs: 2,
      options: { temperature: 1, seed: 3, num_predict: 5 },
    });
    expect(chat.logprobs?.length).toBeGreaterThan(0);
    for (const entry of chat.logprobs ?? []) {
      expect(typeof entry.token).toBe('string');
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.top_logprobs?.length).toBe(2);
    }
    const generated = await ollama.generate({
      model,
      prompt: 'Once upon a time',
      logprobs: true,
      stream: true,
      options: { temperature: 0, num_predict: 4 },
    });
    const entries = [];
    for await (const part of generated) entries.push(...(part.logprobs ?? []));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((entry) => entry.logprob <= 0)).toBe(true);
  });

  test('a model created from a Modelfile keeps tools: its TEMPLATE applies to chats without them', async () => {
    const ollama = new Ollama({ host: relay.url });
    await ollama.create({
      model: 'weather-bot',
      from: model,
      system: 'You report the weather.',
      template: '{{ .System }} Q: {{ .Prompt }} A:',
      parameters: { temperature: 0 },
    });
    const client = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any', maxRetries: 0 });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'get_weather', parameters: weatherParameters },
      },
    ];
    const called = await client.chat.completions.create({
      model: 'weather-bot',
      messages: [{ role: 'user', content: question }],
      tools,
      tool_choice: 'required',
      max_tokens: 300,
    });
    expect(called.choices[0].finish_reason).toBe('tool_calls');
    const call = called.choices[0].message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expectValid(weatherParameters, JSON.parse(call.function.arguments));
    const withTools = await ollama.chat({
      model: 'weather-bot',
      messages: [{ role: 'user', content: question }],
      tools,
      options: { num_predict: 8 },
    });
    expect(withTools.done).toBe(true);
    const shown = await ollama.show({ model: 'weather-bot' });
    expect(shown.capabilities).toEqual(expect.arrayContaining(['completion', 'tools']));
    await ollama.delete({ model: 'weather-bot' });
  });
});
