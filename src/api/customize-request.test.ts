import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../engine/index.js';
import { customizeRequest } from './customize-request.js';
import { modelRecordFixture } from './testing/model-record-fixture.js';

const user = { role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] };
const chat = (sampling: GenerateRequest['sampling'] = {}): GenerateRequest => ({
  model: 'pirate',
  input: { kind: 'chat', messages: [user] },
  sampling,
});
const pirate = modelRecordFixture({
  id: 'pirate',
  customization: {
    from: 'lfm2-350m',
    system: 'You are a pirate.',
    parameters: {
      temperature: 0.2,
      top_k: '20',
      num_ctx: 2048,
      stop: ['<end>', ''],
      num_predict: -1,
    },
    messages: [],
  },
});

describe('customizeRequest', () => {
  it('leaves a plain model’s request alone', () => {
    const request = chat({ temperature: 1 });
    expect(customizeRequest(modelRecordFixture(), request)).toBe(request);
  });

  it('adds the system prompt and takes PARAMETERs as defaults', () => {
    expect(customizeRequest(pirate, chat())).toEqual({
      model: 'pirate',
      input: {
        kind: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'You are a pirate.' }] },
          user,
        ],
      },
      sampling: { temperature: 0.2, topK: 20, stop: ['<end>'] },
      contextLength: 2048,
    });
  });

  it('lets request fields win, zeros included, and keeps the request’s own system message', () => {
    const system = {
      role: 'system' as const,
      content: [{ type: 'text' as const, text: 'Be brief.' }],
    };
    const request: GenerateRequest = {
      model: 'pirate',
      input: { kind: 'chat', messages: [system, user] },
      sampling: { temperature: 0, topK: undefined },
      contextLength: 512,
    };
    const customized = customizeRequest(pirate, request);
    expect(customized.input).toEqual(request.input);
    expect(customized.sampling).toEqual({ temperature: 0, topK: 20, stop: ['<end>'] });
    expect(customized.contextLength).toBe(512);
  });

  it('adds no system message to a raw prompt, nor an empty one', () => {
    const raw: GenerateRequest = {
      model: 'pirate',
      input: { kind: 'prompt', prompt: 'Ahoy' },
      sampling: {},
    };
    expect(customizeRequest(pirate, raw).input).toEqual(raw.input);
    const silent = modelRecordFixture({
      customization: { from: 'lfm2-350m', system: '', parameters: {}, messages: [] },
    });
    expect(customizeRequest(silent, chat()).input).toEqual(chat().input);
  });
});
