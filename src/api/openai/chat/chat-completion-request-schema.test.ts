import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../../errors/index.js';
import { parseWire } from '../../body/parse-wire.js';
import { chatCompletionRequestSchema } from './chat-completion-request-schema.js';
import { completionRequestSchema } from './completion-request-schema.js';

const valid = { model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] };

function failure(schema: Parameters<typeof parseWire>[0], body: unknown): LmtabError {
  try {
    parseWire(schema, body);
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected parseWire to throw');
}

const chatFailure = (body: unknown) => failure(chatCompletionRequestSchema, body);

describe('chatCompletionRequestSchema', () => {
  it('takes nulls, unknown fields, the developer role and both image_url forms', () => {
    const wire = parseWire(chatCompletionRequestSchema, {
      ...valid,
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'assistant', content: null, tool_calls: [] },
        {
          role: 'user',
          name: 'ann',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==', detail: 'low' } },
            { type: 'image_url', image_url: 'https://example.test/cat.png' },
          ],
        },
      ],
      temperature: null,
      top_k: 40,
      repeat_penalty: 1.1,
      user: 'someone',
      tools: [],
      response_format: { type: 'text' },
    });
    expect(wire.top_k).toBe(40);
    expect(wire).not.toHaveProperty('user');
    expect(wire.messages[2]?.content).toHaveLength(3);
  });

  it.each([
    [
      {},
      'Missing required field `model`: expected a string. Missing required field `messages`: expected an array.',
      'model',
    ],
    [
      { ...valid, model: 42 },
      'Invalid `model`: expected a string, received the number 42.',
      'model',
    ],
    [
      { ...valid, messages: [] },
      'Invalid `messages`: expected an array of at least 1 item, received an array of 0 items.',
      'messages',
    ],
    [
      { ...valid, messages: 'Hi' },
      'Invalid `messages`: expected an array, received the string "Hi".',
      'messages',
    ],
    [
      { ...valid, messages: [{ role: 'function', content: 'x' }] },
      'Invalid `messages[0].role`: expected one of "system", "developer", "user", "assistant", "tool", received the string "function".',
      'messages[0].role',
    ],
    [
      { ...valid, messages: [{ role: 'user' }] },
      'Missing required field `messages[0].content`: expected a string or an array of content parts.',
      'messages[0].content',
    ],
    [
      { ...valid, messages: [{ role: 'user', content: 42 }] },
      'Invalid `messages[0].content`: expected a string or an array of content parts, received the number 42.',
      'messages[0].content',
    ],
    [
      { ...valid, messages: [{ role: 'user', content: [{ type: 'input_file' }] }] },
      'Invalid `messages[0].content[0].type`: expected a content part of type "text", "image_url" or "input_audio", received the string "input_file".',
      'messages[0].content[0].type',
    ],
    [
      { ...valid, messages: [{ role: 'user', content: ['Hi'] }] },
      'Invalid `messages[0].content[0]`: expected a content part of type "text", "image_url" or "input_audio", received the string "Hi".',
      'messages[0].content[0]',
    ],
    [
      { ...valid, messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      'Missing required field `messages[0].content[0].text`: expected a string.',
      'messages[0].content[0].text',
    ],
    [
      { ...valid, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 5 }] }] },
      'Invalid `messages[0].content[0].image_url`: expected an image URL string or an object with a `url` string, received the number 5.',
      'messages[0].content[0].image_url',
    ],
    [
      { ...valid, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] },
      'Missing required field `messages[0].content[0].image_url.url`: expected a string.',
      'messages[0].content[0].image_url.url',
    ],
    [
      { ...valid, temperature: 'hot' },
      'Invalid `temperature`: expected a number, received the string "hot".',
      'temperature',
    ],
    [
      { ...valid, temperature: -1 },
      'Invalid `temperature`: expected a number >= 0, received the number -1.',
      'temperature',
    ],
    [
      { ...valid, top_p: 1.5 },
      'Invalid `top_p`: expected a number <= 1, received the number 1.5.',
      'top_p',
    ],
    [
      { ...valid, top_k: 2.5 },
      'Invalid `top_k`: expected an integer, received the number 2.5.',
      'top_k',
    ],
    [
      { ...valid, min_p: -0.1 },
      'Invalid `min_p`: expected a number >= 0, received the number -0.1.',
      'min_p',
    ],
    [
      { ...valid, max_tokens: -1 },
      'Invalid `max_tokens`: expected an integer >= 0, received the number -1.',
      'max_tokens',
    ],
    [
      { ...valid, max_completion_tokens: '10' },
      'Invalid `max_completion_tokens`: expected an integer, received the string "10".',
      'max_completion_tokens',
    ],
    [
      { ...valid, repeat_penalty: -1 },
      'Invalid `repeat_penalty`: expected a number >= 0, received the number -1.',
      'repeat_penalty',
    ],
    [
      { ...valid, frequency_penalty: 3 },
      'Invalid `frequency_penalty`: expected a number <= 2, received the number 3.',
      'frequency_penalty',
    ],
    [
      { ...valid, presence_penalty: -3 },
      'Invalid `presence_penalty`: expected a number >= -2, received the number -3.',
      'presence_penalty',
    ],
    [
      { ...valid, seed: 'abc' },
      'Invalid `seed`: expected an integer, received the string "abc".',
      'seed',
    ],
    [
      { ...valid, stop: 5 },
      'Invalid `stop`: expected a string or an array of strings, received the number 5.',
      'stop',
    ],
    [
      { ...valid, stop: ['\n', 1] },
      'Invalid `stop[1]`: expected a string, received the number 1.',
      'stop[1]',
    ],
    [
      { ...valid, stream: 'yes' },
      'Invalid `stream`: expected a boolean, received the string "yes".',
      'stream',
    ],
    [
      { ...valid, stream_options: { include_usage: 1 } },
      'Invalid `stream_options.include_usage`: expected a boolean, received the number 1.',
      'stream_options.include_usage',
    ],
    [
      { ...valid, n: 2 },
      'Invalid `n`: expected 1 (lmtab generates one choice per request), received the number 2.',
      'n',
    ],
    [[valid], 'Invalid request body: expected an object, received an array of 1 item.', undefined],
  ])('refuses %j with 400', (body, message, param) => {
    const error = chatFailure(body);
    expect(error.message).toBe(message);
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param });
  });
});

describe('completionRequestSchema', () => {
  it('takes a prompt string or a one-string array', () => {
    expect(parseWire(completionRequestSchema, { model: 'm', prompt: 'Once' }).prompt).toBe('Once');
    expect(parseWire(completionRequestSchema, { model: 'm', prompt: ['Once'] }).prompt).toEqual([
      'Once',
    ]);
  });

  it.each([
    [
      { model: 'm' },
      'Missing required field `prompt`: expected a string (or an array holding one string).',
    ],
    [
      { model: 'm', prompt: ['a', 'b'] },
      'Invalid `prompt`: expected a string (or an array holding one string), received an array of 2 items.',
    ],
    [
      { model: 'm', prompt: 7 },
      'Invalid `prompt`: expected a string (or an array holding one string), received the number 7.',
    ],
  ])('refuses %j with 400', (body, message) => {
    const error = failure(completionRequestSchema, body);
    expect(error.message).toBe(message);
    expect(error.status).toBe(400);
  });
});
