import { describe, expect, it } from 'vitest';
import { unsafeByteTokens } from './utf8-guard.js';

describe('unsafeByteTokens', () => {
  it('finds GPT-2 byte tokens of the unsafe lead bytes, and no merged token', () => {
    const tokens = ['<|pad|>', 'a', 'À', 'Á', 'Â', 'à', 'à¤', 'í', 'ð', 'ðŁ', 'ô', 'õ', 'ÿ'];
    const metadata = new Map<string, unknown>([
      ['tokenizer.ggml.model', 'gpt2'],
      ['tokenizer.ggml.tokens', tokens],
    ]);
    const ids = unsafeByteTokens(metadata as never);
    expect(ids.map((id) => tokens[id])).toEqual(['À', 'Á', 'à', 'í', 'ð', 'ô', 'õ', 'ÿ']);
  });

  it('finds SentencePiece byte-fallback tokens', () => {
    const tokens = ['<unk>', '<0x41>', '<0xC0>', '<0xE0>', '<0xE1>', '<0xFF>', '▁the'];
    const metadata = new Map<string, unknown>([
      ['tokenizer.ggml.model', 'llama'],
      ['tokenizer.ggml.tokens', tokens],
    ]);
    expect(unsafeByteTokens(metadata as never)).toEqual([2, 3, 5]);
  });

  it('gives none without a vocabulary', () => {
    expect(unsafeByteTokens(new Map())).toEqual([]);
  });
});

describe('partialCharacterTokens', () => {
  it('lists the tokens whose bytes are not whole characters, at either end', async () => {
    const { partialCharacterTokens } = await import('./utf8-guard.js');
    // GPT-2 byte stand-ins: "Ã" is byte 0xC3 (a lead without its continuation), "©" 0xA9.
    const metadata = new Map<string, unknown>([
      ['tokenizer.ggml.model', 'gpt2'],
      ['tokenizer.ggml.tokens', ['hello', 'Ã', 'Ġ' + 'Ã', '©', 'Ã©', 'ĠÃ©']],
    ]);
    expect(partialCharacterTokens(metadata as never)).toEqual([1, 2, 3]);
  });
});
