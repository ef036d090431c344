import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../engine/index.js';
import { customizeRequest } from './customize-request.js';
import { modelRecordFixture } from '../testing/model-record-fixture.js';

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

  it('lets a request’s num_predict -1 lift the Modelfile’s limit', () => {
    const limited = modelRecordFixture({
      id: 'brief',
      customization: { from: 'lfm2-350m', parameters: { num_predict: 64 }, messages: [] },
    });
    expect(customizeRequest(limited, chat()).sampling.maxTokens).toBe(64);
    const lifted = customizeRequest(limited, chat(), { options: { num_predict: -1 } });
    expect(lifted.sampling.maxTokens).toBeUndefined();
    const smaller = customizeRequest(limited, chat(), { options: { num_predict: 8 } });
    expect(smaller.sampling.maxTokens).toBe(8);
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

  it('renders a chat through the TEMPLATE into a raw prompt, with SYSTEM and MESSAGE history', () => {
    const issue = modelRecordFixture({
      id: 'tiny-chatml',
      customization: {
        from: 'lfm2-350m',
        template:
          '<|startoftext|><|im_start|>system\n{{ .System }}<|im_end|>\n<|im_start|>user\n' +
          '{{ .Prompt }}<|im_end|>\n<|im_start|>assistant\n',
        system: 'Be terse.',
        parameters: { temperature: 0.3, top_k: 50, stop: ['<|im_end|>', '<|endoftext|>'] },
        messages: [
          { role: 'user', content: 'Ping' },
          { role: 'assistant', content: 'Pong' },
        ],
      },
    });
    const customized = customizeRequest(issue, chat({ temperature: 0.9 }));
    expect(customized.sampling).toEqual({
      temperature: 0.9,
      topK: 50,
      stop: ['<|im_end|>', '<|endoftext|>'],
    });
    expect(customized.input).toEqual({
      kind: 'prompt',
      prompt:
        '<|startoftext|><|im_start|>system\nBe terse.<|im_end|>\n<|im_start|>user\nPing<|im_end|>\n' +
        '<|im_start|>assistant\nPong<|startoftext|><|im_start|>system\n<|im_end|>\n' +
        '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
    });
  });

  it('lets the request’s system message replace SYSTEM in a rendered prompt', () => {
    const model = modelRecordFixture({
      customization: {
        from: 'lfm2-350m',
        template: '{{ range .Messages }}[{{ .Role }}] {{ .Content }}\n{{ end }}[assistant]',
        system: 'Default.',
        parameters: {},
        messages: [{ role: 'user', content: 'Earlier' }],
      },
    });
    const request: GenerateRequest = {
      model: 'pirate',
      input: {
        kind: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Own.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Now ' },
              { type: 'text', text: 'this' },
            ],
          },
        ],
      },
      sampling: {},
    };
    expect(customizeRequest(model, request).input).toEqual({
      kind: 'prompt',
      prompt: '[system] Own.\n[user] Earlier\n\nNow this\n[assistant]',
    });
  });

  it('passes the clock to currentDate', () => {
    const model = modelRecordFixture({
      customization: {
        from: 'lfm2-350m',
        template: 'Today is {{ currentDate }}. {{ .Prompt }}',
        parameters: {},
        messages: [],
      },
    });
    const clock = () => Date.UTC(2026, 10, 21, 12);
    expect(customizeRequest(model, chat(), { clock }).input).toEqual({
      kind: 'prompt',
      prompt: 'Today is 2026-11-21. Hi',
    });
  });

  it('keeps a chat with images as a chat, with SYSTEM and MESSAGE history before it', () => {
    const model = modelRecordFixture({
      customization: {
        from: 'lfm2-350m',
        template: '{{ .Prompt }}',
        system: 'Describe.',
        parameters: {},
        messages: [{ role: 'user', content: 'Earlier' }],
      },
    });
    const image = { type: 'image' as const, data: new Uint8Array([1]), mimeType: 'image/png' };
    const request: GenerateRequest = {
      model: 'pirate',
      input: {
        kind: 'chat',
        messages: [{ role: 'user', content: [image, { type: 'text', text: 'What?' }] }],
      },
      sampling: {},
    };
    expect(customizeRequest(model, request).input).toEqual({
      kind: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Describe.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Earlier' }] },
        { role: 'user', content: [image, { type: 'text', text: 'What?' }] },
      ],
    });
  });

  it('leaves a raw prompt untouched even with a TEMPLATE', () => {
    const model = modelRecordFixture({
      customization: {
        from: 'lfm2-350m',
        template: 'T {{ .Prompt }}',
        parameters: {},
        messages: [],
      },
    });
    const raw: GenerateRequest = {
      model: 'x',
      input: { kind: 'prompt', prompt: 'as is' },
      sampling: {},
    };
    expect(customizeRequest(model, raw).input).toEqual(raw.input);
  });
});
