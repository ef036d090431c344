import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import {
  assertAnswerLimit,
  assertContextLength,
  contextExceeded,
  maxAnswerLimit,
  maxContextLength,
  promptTokensOf,
  raisedContext,
} from './context-limits.js';

function refusal(run: () => void): LmtabError {
  try {
    run();
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('assertContextLength', () => {
  it("allows up to the model's training context", () => {
    expect(() => assertContextLength('m', 32_768, 32_768)).not.toThrow();
  });

  it('refuses beyond the training context, naming it and num_ctx', () => {
    const error = refusal(() => assertContextLength('lfm2', 1e9, 32_768));
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe('num_ctx');
    expect(error.message).toBe(
      "The context length (num_ctx) 1,000,000,000 is beyond what the engine can hold for lfm2: at most 32,768 tokens (the model's training context).",
    );
  });

  it("refuses beyond lmtab's limit for a tab when the model was trained longer, or is unknown", () => {
    for (const trained of [1_000_000, undefined]) {
      const error = refusal(() => assertContextLength('m', maxContextLength + 1, trained));
      expect(error.message).toContain(`at most 262,144 tokens (lmtab's limit for a browser tab)`);
    }
  });
});

describe('assertAnswerLimit', () => {
  it('takes no limit, and any limit beyond the loaded context as a ceiling', () => {
    expect(() => assertAnswerLimit('m', undefined, 4096)).not.toThrow();
    expect(() => assertAnswerLimit('m', 4096, 4096)).not.toThrow();
    expect(() => assertAnswerLimit('m', 32_000, 4096)).not.toThrow();
    expect(() => assertAnswerLimit('m', maxAnswerLimit, 4096)).not.toThrow();
  });

  it('refuses a limit llama.cpp cannot read as a 32-bit number (1e12 would wrap)', () => {
    const error = refusal(() => assertAnswerLimit('m', 1e12, 4096));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'max_tokens' });
    expect(error.message).toContain('is 1,000,000,000,000 tokens');
    expect(error.message).toContain('at most 2,147,483,647');
  });
});

describe('contextExceeded', () => {
  it("states the prompt's tokens from llama.cpp's message, and the loaded context", () => {
    const error = contextExceeded(
      'tiny-lfm2',
      4096,
      'request (6012 tokens) exceeds the available context size (4096 tokens), try increasing it',
    );
    expect(error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
    expect(error.message).toMatch(
      /^The prompt is 6,012 tokens, which does not fit the context: tiny-lfm2 is loaded with 4,096 tokens of context/,
    );
  });

  it('still names the context when the engine gives no count', () => {
    const error = contextExceeded('m', 2048, 'exceeds the available context size');
    expect(error.message).toMatch(/^The prompt does not fit the context: m is loaded with 2,048/);
  });
});

describe('raisedContext (a prompt over the loaded context reloads the model)', () => {
  it('makes room for the prompt and an answer, as a power of two, at least double', () => {
    expect(raisedContext(12_001, 4096, 1, 32_768)).toBe(16_384);
    expect(raisedContext(5000, 4096, undefined, 128_000)).toBe(16_384);
    expect(raisedContext(4100, 4096, 10, 128_000)).toBe(8192);
  });

  it('stops at the training context, and gives up where even that cannot hold the prompt', () => {
    expect(raisedContext(20_000, 4096, 32_000, 32_768)).toBe(32_768);
    expect(raisedContext(40_000, 4096, 1, 32_768)).toBeUndefined();
  });

  it("reads the prompt's tokens from llama.cpp's message", () => {
    expect(
      promptTokensOf('request (12001 tokens) exceeds the available context size (4096 tokens)'),
    ).toBe(12_001);
    expect(promptTokensOf('something else')).toBeUndefined();
  });
});
