import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import type { ChatMessage, GenerateRequest } from '../engine.js';
import { toWebLlmChatRequest, toWebLlmCompletionRequest } from './web-llm-request.js';

const text = (value: string) => ({ type: 'text' as const, text: value });

function chat(
  messages: ChatMessage[],
  sampling: GenerateRequest['sampling'] = {},
): GenerateRequest {
  return { model: 'm', input: { kind: 'chat', messages }, sampling };
}

function refusal(run: () => unknown): LmtabError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(LmtabError);
  return caught as LmtabError;
}

describe('toWebLlmChatRequest', () => {
  it('maps messages and sampling to a streamed request with usage, without top-k and min-p', () => {
    const request = toWebLlmChatRequest(
      chat(
        [
          { role: 'system', content: [text('Be brief.')] },
          { role: 'user', content: [text('Hi'), text(' there')] },
          { role: 'assistant', content: [text('Hello!')] },
          { role: 'user', content: [text('Bye')] },
        ],
        { temperature: 0, topP: 0.5, topK: 20, minP: 0.1, seed: 7, stop: ['END'], maxTokens: 9 },
      ),
    );
    expect(request).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi there' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Bye' },
      ],
      temperature: 0,
      top_p: 0.5,
      seed: 7,
      stop: ['END'],
      max_tokens: 9,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('gives a vision model its images as data URLs, with the texts joined into one part', () => {
    const request = toWebLlmChatRequest(
      chat([
        {
          role: 'user',
          content: [
            text('Compare '),
            { type: 'image', data: new Uint8Array([1, 2, 3]), mimeType: 'image/png' },
            text('and this'),
            { type: 'image', data: new Uint8Array([255]), mimeType: 'image/jpeg' },
          ],
        },
      ]),
      { vision: true },
    );
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare and this' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AQID' } },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/w==' } },
        ],
      },
    ]);
  });

  it('refuses what web-llm would refuse, saying what was expected', () => {
    const image = { type: 'image' as const, data: new Uint8Array([1]), mimeType: 'image/png' };
    expect(
      refusal(() => toWebLlmChatRequest(chat([{ role: 'user', content: [image] }]))).message,
    ).toBe(
      'This MLC model cannot read images (it is not a vision model), and message 0 has 1. Send text only.',
    );
    expect(
      refusal(() =>
        toWebLlmChatRequest(
          chat([
            { role: 'user', content: [text('a')] },
            { role: 'system', content: [text('b')] },
            { role: 'user', content: [text('c')] },
          ]),
        ),
      ).message,
    ).toBe('web-llm takes a system message only as the first message, but message 1 is one.');
    expect(
      refusal(() =>
        toWebLlmChatRequest(
          chat([
            { role: 'user', content: [text('a')] },
            { role: 'assistant', content: [text('b')] },
          ]),
        ),
      ),
    ).toMatchObject({
      code: 'invalid_request',
      status: 400,
      param: 'messages',
      message:
        'web-llm answers a conversation that ends with a user message, but it ends with an assistant message.',
    });
    expect(
      refusal(() =>
        toWebLlmChatRequest(chat([{ role: 'user', content: [text('a')] }], { topP: 0 })),
      ).message,
    ).toBe('web-llm takes a top-p above 0 (and at most 1), got 0.');
    expect(
      refusal(() =>
        toWebLlmChatRequest(chat([{ role: 'user', content: [text('a')] }], { maxTokens: 0 })),
      ).message,
    ).toBe('web-llm generates at least one token: expected a token limit above 0, got 0.');
  });
});

describe('what web-llm cannot do of tools, logprobs, thinking and JSON', () => {
  const ask = (extra: Partial<GenerateRequest>): GenerateRequest => ({
    ...chat([{ role: 'user', content: [text('a')] }]),
    ...extra,
  });
  const weather = { name: 'get_weather', parameters: { type: 'object' } };

  it('is a 400 that names the field and says "not supported by this engine"', () => {
    const cases: Array<[Partial<GenerateRequest>, string, string]> = [
      [{ tools: [weather] }, 'tools', 'Tool calls are not supported by this engine (web-llm)'],
      [{ tools: [weather], toolChoice: 'required' }, 'tools', 'Tool calls are not supported'],
      [{ logprobs: { top: 2 } }, 'logprobs', 'Log probabilities are not supported'],
      [{ thinking: false }, 'thinking', 'Thinking switches are not supported'],
    ];
    for (const [extra, param, message] of cases) {
      const error = refusal(() => toWebLlmChatRequest(ask(extra)));
      expect(error).toMatchObject({ code: 'invalid_request', status: 400, param });
      expect(error.message).toContain(message);
      expect(error.message).toContain('load a GGUF model for them');
    }
    const history = chat([
      { role: 'user', content: [text('a')] },
      { role: 'assistant', content: [], toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] },
      { role: 'user', content: [text('b')] },
    ]);
    expect(refusal(() => toWebLlmChatRequest(history)).message).toBe(
      'Tool calls in the history (message 1) are not supported by this engine (web-llm); load a GGUF model for them.',
    );
    const raw: GenerateRequest = {
      model: 'm',
      input: { kind: 'prompt', prompt: 'x' },
      sampling: {},
      format: { type: 'json' },
    };
    expect(refusal(() => toWebLlmCompletionRequest(raw)).param).toBe('format');
  });

  it('passes tools with tool_choice "none" as a plain chat, and JSON as json_object with its schema', () => {
    expect(toWebLlmChatRequest(ask({ tools: [weather], toolChoice: 'none' }))).not.toHaveProperty(
      'tools',
    );
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(toWebLlmChatRequest(ask({ format: { type: 'json', schema } })).response_format).toEqual({
      type: 'json_object',
      schema: JSON.stringify(schema),
    });
    expect(toWebLlmChatRequest(ask({ format: { type: 'json' } })).response_format).toEqual({
      type: 'json_object',
    });
  });
});

describe('toWebLlmCompletionRequest', () => {
  it('maps a raw prompt, keeping a meaningful 0', () => {
    expect(
      toWebLlmCompletionRequest({
        model: 'm',
        input: { kind: 'prompt', prompt: 'Once' },
        sampling: { temperature: 0, presencePenalty: 0 },
      }),
    ).toEqual({
      model: 'm',
      prompt: 'Once',
      temperature: 0,
      presence_penalty: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('refuses images', () => {
    const error = refusal(() =>
      toWebLlmCompletionRequest({
        model: 'm',
        input: {
          kind: 'prompt',
          prompt: '<image>',
          images: [{ type: 'image', data: new Uint8Array([1]), mimeType: 'image/png' }],
        },
        sampling: {},
      }),
    );
    expect(error.message).toBe(
      "web-llm's text completion takes no images, but the request has 1. Use chat messages.",
    );
  });
});
