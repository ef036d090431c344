import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { parseWire } from '../body/parse-wire.js';
import { chatRequestSchema } from './generate/chat-request-schema.js';
import { generateRequestSchema } from './generate/generate-request-schema.js';
import { isUnloadNow } from './generate/keep-alive-schema.js';
import { parseModelName } from './models/model-name-request-schema.js';

function failure(run: () => unknown): LmtabError {
  try {
    run();
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('generateRequestSchema', () => {
  it('takes the documented fields and drops the rest', () => {
    const wire = parseWire(generateRequestSchema, {
      model: 'lfm2',
      prompt: 'Why?',
      images: ['iVBORw0KGgo='],
      options: { temperature: 0, num_ctx: 2048, mirostat: 1 },
      stream: false,
      raw: true,
      keep_alive: '5m',
      format: 'json',
      context: [1, 2],
    });
    expect(wire).toEqual({
      model: 'lfm2',
      prompt: 'Why?',
      images: ['iVBORw0KGgo='],
      options: { temperature: 0, num_ctx: 2048 },
      stream: false,
      raw: true,
      keep_alive: '5m',
      format: 'json',
    });
  });

  it.each([
    [{ prompt: 'x' }, 'Missing required field `model`: expected a string.', 'model'],
    [
      { model: 'm', prompt: 1 },
      'Invalid `prompt`: expected a string, received the number 1.',
      'prompt',
    ],
    [
      { model: 'm', images: 'abc' },
      'Invalid `images`: expected an array, received the string "abc".',
      'images',
    ],
    [
      { model: 'm', images: [1] },
      'Invalid `images[0]`: expected a string, received the number 1.',
      'images[0]',
    ],
    [
      { model: 'm', options: { temperature: 'warm' } },
      'Invalid `options.temperature`: expected a number, received the string "warm".',
      'options.temperature',
    ],
    [
      { model: 'm', options: { num_predict: 1.5 } },
      'Invalid `options.num_predict`: expected an integer, received the number 1.5.',
      'options.num_predict',
    ],
    [
      { model: 'm', options: { num_ctx: 0 } },
      'Invalid `options.num_ctx`: expected an integer >= 1, received the number 0.',
      'options.num_ctx',
    ],
    [
      { model: 'm', options: { stop: [1] } },
      'Invalid `options.stop[0]`: expected a string, received the number 1.',
      'options.stop[0]',
    ],
    [
      { model: 'm', stream: 'no' },
      'Invalid `stream`: expected a boolean, received the string "no".',
      'stream',
    ],
    [
      { model: 'm', keep_alive: true },
      'Invalid `keep_alive`: expected a duration such as "5m", or a number of seconds, received the boolean true.',
      'keep_alive',
    ],
  ])('refuses %j with 400', (body, message, param) => {
    const error = failure(() => parseWire(generateRequestSchema, body));
    expect(error.message).toBe(message);
    expect(error).toMatchObject({ status: 400, param });
  });
});

describe('chatRequestSchema', () => {
  it.each([
    [
      { model: 'm', messages: [{ role: 'function', content: 'x' }] },
      'Invalid `messages[0].role`: expected one of "system", "user", "assistant", "tool", received the string "function".',
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: 5 }] },
      'Invalid `messages[0].content`: expected a string, received the number 5.',
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: 'x', images: [null] }] },
      'Invalid `messages[0].images[0]`: expected a string, received null.',
    ],
  ])('refuses %j with 400', (body, message) => {
    expect(failure(() => parseWire(chatRequestSchema, body)).message).toBe(message);
  });
});

describe('parseModelName', () => {
  it('takes `model` or the older `name`', () => {
    expect(parseModelName({ model: 'a' })).toBe('a');
    expect(parseModelName({ name: 'b' })).toBe('b');
  });

  it('refuses a body naming no model', () => {
    const error = failure(() => parseModelName({}));
    expect(error.message).toBe(
      'Missing required field `model`: expected a string naming a model (or `name`).',
    );
    expect(error).toMatchObject({ status: 400, param: 'model' });
  });
});

describe('isUnloadNow', () => {
  it.each([
    [0, true],
    ['0', true],
    ['0s', true],
    ['0m', true],
    [300, false],
    ['5m', false],
    [-1, false],
    [undefined, false],
  ])('%j -> %s', (keepAlive, expected) => {
    expect(isUnloadNow(keepAlive)).toBe(expected);
  });
});
