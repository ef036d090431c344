import { describe, expect, it } from 'vitest';
import { readModelName } from './read-model-name.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readModelName', () => {
  it('reads the top-level model of a JSON body', () => {
    expect(
      readModelName(bytes('{"messages":[{"content":"{\\"model\\":\\"no\\"}"}],"model":"m1"}')),
    ).toBe('m1');
    expect(readModelName(bytes('{"model":5}'))).toBeUndefined();
    expect(readModelName(bytes('{"prompt":"x"}'))).toBeUndefined();
    expect(readModelName(bytes(''))).toBeUndefined();
  });

  it('searches the start of a body too long to parse', () => {
    const long = `{"model":"hf.co/org/repo:Q4_K_M","images":["${'A'.repeat(100_000)}"]}`;
    expect(readModelName(bytes(long))).toBe('hf.co/org/repo:Q4_K_M');
  });
});
