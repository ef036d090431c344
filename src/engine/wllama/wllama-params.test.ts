import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../engine.js';
import { VALID_UTF8_GRAMMAR } from './utf8-guard.js';
import { findUnusedThinkStart, wllamaParams } from './wllama-params.js';

const weather = { name: 'get_weather', parameters: { type: 'object' } };
const time = { name: 'get_time', parameters: { type: 'object' } };
const vocabulary = { unsafeTokens: [300], toolCallStart: 50, continuationTokens: [400, 401] };

function chat(extra: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    model: 'm',
    input: { kind: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] },
    sampling: { maxTokens: 8 },
    ...extra,
  };
}

describe('wllamaParams', () => {
  it('guards free text with the UTF-8 grammar, bans unsafe lead bytes and, without tools, calls', () => {
    const params = wllamaParams(chat(), vocabulary);
    expect(params).toMatchObject({
      grammar: VALID_UTF8_GRAMMAR,
      logit_bias: [
        [300, false],
        [50, false],
      ],
    });
    expect(params.tools).toBeUndefined();
    const raw = wllamaParams(
      { model: 'm', input: { kind: 'prompt', prompt: 'x' }, sampling: {} },
      vocabulary,
    );
    expect(raw.logit_bias).toEqual([[300, false]]);
  });

  it('bans <think> in chats with a model whose template does not think', () => {
    const params = wllamaParams(chat({ tools: [weather] }), {
      ...vocabulary,
      unusedThinkStart: 52,
    });
    expect(params.logit_bias).toEqual([
      [300, false],
      [52, false],
    ]);
    expect(findUnusedThinkStart(['a', '<think>', '</think>'], '{{ messages }}')).toBe(1);
    expect(findUnusedThinkStart(['a', '<think>'], '{% if enable_thinking %}')).toBeUndefined();
    expect(findUnusedThinkStart(['a'], '')).toBeUndefined();
  });

  it('forces a named call with its JSON Schema, the tools shown, llama.cpp told none', () => {
    const params = wllamaParams(
      chat({ tools: [weather, time], toolChoice: { name: 'get_time' } }),
      vocabulary,
    );
    expect(params.tool_choice).toBe('none');
    expect(params.tools).toHaveLength(2);
    expect(params.grammar).toBeUndefined();
    expect(params.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'answer',
        schema: {
          type: 'object',
          properties: { name: { const: 'get_time' }, arguments: { type: 'object' } },
          required: ['name', 'arguments'],
          additionalProperties: false,
        },
      },
    });
    expect(params.logit_bias).toEqual([
      [300, false],
      [50, false],
    ]);
  });

  it('lets llama.cpp parse auto calls, bans the call token for none', () => {
    const auto = wllamaParams(chat({ tools: [weather], parallelToolCalls: false }), vocabulary);
    expect(auto).toMatchObject({ tool_choice: 'auto', parallel_tool_calls: false });
    expect(auto.grammar).toBeUndefined();
    const none = wllamaParams(chat({ tools: [weather], toolChoice: 'none' }), vocabulary);
    expect(none).toMatchObject({ tool_choice: 'none', grammar: VALID_UTF8_GRAMMAR });
    expect(none.logit_bias).toContainEqual([50, false]);
  });

  it('asks for post-sampling logprobs, at least one alternative, without mid-character tokens', () => {
    const params = wllamaParams(chat({ logprobs: { top: 0 } }), vocabulary);
    expect(params).toMatchObject({ logprobs: true, top_logprobs: 1, post_sampling_probs: true });
    expect(params.logit_bias).toEqual([
      [300, false],
      [50, false],
      [400, false],
      [401, false],
    ]);
    const raw = wllamaParams(
      {
        model: 'm',
        input: { kind: 'prompt', prompt: 'x' },
        sampling: {},
        logprobs: { top: 3 },
        format: { type: 'json' },
      },
      vocabulary,
    );
    expect(raw).toMatchObject({ n_probs: 3, json_schema: {} });
    expect(raw.grammar).toBeUndefined();
  });

  it("asks for llama.cpp's verbose result, which names the stop string, when stop strings are given", () => {
    expect(wllamaParams(chat({ sampling: { stop: ['###'] } }), vocabulary).verbose).toBe(true);
    expect(wllamaParams(chat(), vocabulary).verbose).toBeUndefined();
  });

  it('sets enable_thinking from the request', () => {
    expect(wllamaParams(chat({ thinking: false }), vocabulary).chat_template_kwargs).toEqual({
      enable_thinking: false,
    });
  });
});
