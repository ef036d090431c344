import { describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import type { GgufChoice } from './gguf-choices.js';
import { canonicalModelName, parseModelReference, pickChoice } from './model-reference.js';

describe('parseModelReference', () => {
  it.each([
    ['hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M', 'LiquidAI/LFM2-350M-GGUF', 'Q4_K_M'],
    ['huggingface.co/LiquidAI/LFM2-350M-GGUF:q8_0', 'LiquidAI/LFM2-350M-GGUF', 'Q8_0'],
    ['hf.co/LiquidAI/LFM2-350M-GGUF', 'LiquidAI/LFM2-350M-GGUF', undefined],
    ['LiquidAI/LFM2-350M-GGUF', 'LiquidAI/LFM2-350M-GGUF', undefined],
    ['LiquidAI/LFM2-350M-GGUF:iq4_xs', 'LiquidAI/LFM2-350M-GGUF', 'IQ4_XS'],
    ['https://huggingface.co/unsloth/Qwen3-8B-GGUF/', 'unsloth/Qwen3-8B-GGUF', undefined],
    ['hf.co/unsloth/Qwen3-8B-GGUF:ud-q4_k_xl', 'unsloth/Qwen3-8B-GGUF', 'UD-Q4_K_XL'],
    ['hf.co/org/repo:latest', 'org/repo', undefined],
    ['  org/repo:Q6_K  ', 'org/repo', 'Q6_K'],
  ])('%s', (text, repo, quantization) => {
    expect(parseModelReference(text)).toEqual({ repo, quantization, revision: 'main' });
  });

  it('takes a file name as the tag, Ollama style', () => {
    expect(
      parseModelReference(
        'hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Llama-3.2-3B-Instruct-IQ3_M.gguf',
      ),
    ).toEqual({
      repo: 'bartowski/Llama-3.2-3B-Instruct-GGUF',
      quantization: 'IQ3_M',
      revision: 'main',
    });
    expect(parseModelReference('org/repo:model.gguf').quantization).toBe('model.gguf');
  });

  it('reads a revision after @', () => {
    expect(parseModelReference('hf.co/org/repo@v1.0:Q8_0')).toEqual({
      repo: 'org/repo',
      quantization: 'Q8_0',
      revision: 'v1.0',
    });
  });

  it.each([
    [''],
    ['repo-only'],
    ['hf.co/'],
    ['hf.co/org'],
    ['org/repo/extra'],
    ['org/repo:'],
    ['org/repo:Q4 K M'],
    ['org/-repo'],
    ['org/re--po'],
    ['https://example.com/org/repo'],
    ['org/repo@:Q4_K_M'],
    ['./models/model.gguf'],
  ])('rejects %j with invalid_request', (text) => {
    let caught: unknown;
    try {
      parseModelReference(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LmtabError);
    expect((caught as LmtabError).code).toBe('invalid_request');
    expect((caught as LmtabError).message).toContain('Expected a hub model reference');
    expect((caught as LmtabError).message).toContain(JSON.stringify(text));
  });
});

describe('canonicalModelName', () => {
  it('is Ollama style', () => {
    expect(canonicalModelName('LiquidAI/LFM2-350M-GGUF', 'Q4_K_M')).toBe(
      'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
    );
  });
});

const choice = (quantization: string, path = `M-${quantization}.gguf`): GgufChoice => ({
  quantization,
  files: [{ path, size: 1 }],
  size: 1,
  downloadSize: 1,
  recommended: false,
  note: '',
});

describe('pickChoice', () => {
  const choices = [choice('Q2_K'), choice('Q4_K_M'), choice('Q8_0')];

  it('defaults to Q4_K_M', () => {
    expect(pickChoice(choices).quantization).toBe('Q4_K_M');
  });

  it('defaults to the nearest level when Q4_K_M is missing', () => {
    expect(pickChoice([choice('Q3_K_M'), choice('Q5_K_M'), choice('Q8_0')]).quantization).toBe(
      'Q5_K_M',
    );
    expect(pickChoice([choice('Q4_0'), choice('Q8_0')]).quantization).toBe('Q4_0');
    expect(pickChoice([choice('F16')]).quantization).toBe('F16');
    expect(pickChoice([choice('model', 'model.gguf')]).quantization).toBe('model');
  });

  it('matches a named level case-insensitively, or a file name', () => {
    expect(pickChoice(choices, 'q8_0').quantization).toBe('Q8_0');
    expect(pickChoice(choices, 'M-Q2_K.gguf').quantization).toBe('Q2_K');
  });

  it('fails on a missing named level unless nearest is asked for', () => {
    expect(() => pickChoice(choices, 'Q6_K', { repo: 'org/repo' })).toThrowError(
      expect.objectContaining({
        code: 'model_not_found',
        message: 'org/repo has no Q6_K file: expected one of Q2_K, Q4_K_M, Q8_0, got Q6_K.',
      }),
    );
    expect(pickChoice(choices, 'Q6_K', { nearest: true }).quantization).toBe('Q8_0');
    expect(pickChoice(choices, 'IQ1_S', { nearest: true }).quantization).toBe('Q2_K');
    expect(pickChoice(choices, 'Q5_K_M', { nearest: true }).quantization).toBe('Q4_K_M');
  });

  it('fails when the repository has no GGUF model', () => {
    expect(() => pickChoice([], undefined, { repo: 'org/repo' })).toThrowError(
      expect.objectContaining({
        code: 'model_not_found',
        message: expect.stringContaining('org/repo'),
      }),
    );
  });
});
