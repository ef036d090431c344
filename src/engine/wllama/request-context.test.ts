import { describe, expect, it } from 'vitest';
import { requestContext } from './wllama-embed.js';

describe('requestContext (an embedding model loads with a context sized to the request)', () => {
  it('holds the longest input, as a power of two from 512', () => {
    expect(requestContext(['a sentence'])).toBe(512);
    expect(requestContext(['short', 'x'.repeat(3000)])).toBe(4096);
    // Token ids count exactly; a text's UTF-8 bytes bound its tokens ("é" is two bytes).
    expect(requestContext([Array.from({ length: 600 }, (_, i) => i)])).toBe(1024);
    expect(requestContext(['é'.repeat(600)])).toBe(2048);
  });

  it('never asks for more than the training context', () => {
    expect(requestContext(['x'.repeat(100_000)], 32_768)).toBe(32_768);
    expect(requestContext(['a sentence'], 256)).toBe(256);
  });
});
