import { describe, expect, it } from 'vitest';
import { isHubReference, storedReference } from './pull-model.js';
import type { TagsModel } from '../relay-client.js';

const model = (name: string, day: number): TagsModel => ({
  name,
  size: 1,
  digest: 'a'.repeat(64),
  modified_at: new Date(Date.UTC(2026, 10, day)).toISOString(),
});
const stored = [
  model('hf.co/LiquidAI/LFM2-350M-GGUF:Q8_0', 3),
  model('hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M', 1),
  model('hf.co/LiquidAI/LFM2-VL-450M-GGUF:Q8_0', 2),
  model('tiny-chat', 4),
];

describe('storedReference', () => {
  it.each([
    ['hf.co/LiquidAI/LFM2-350M-GGUF:Q8_0', 'hf.co/LiquidAI/LFM2-350M-GGUF:Q8_0'],
    ['hf.co/liquidai/lfm2-350m-gguf:q8_0', 'hf.co/LiquidAI/LFM2-350M-GGUF:Q8_0'],
    ['LiquidAI/LFM2-350M-GGUF', 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M'],
    ['hf.co/LiquidAI/LFM2-VL-450M-GGUF', 'hf.co/LiquidAI/LFM2-VL-450M-GGUF:Q8_0'],
    ['hf.co/LiquidAI/LFM2-VL-450M-GGUF:Q4_K_M', undefined],
    ['tiny-chat', undefined],
  ])('%s -> %s', (ref, name) => expect(storedReference(stored, ref)).toBe(name));
});

describe('isHubReference', () => {
  it('tells hub references from plain names', () => {
    expect(isHubReference('hf.co/ORG/REPO:Q4_K_M')).toBe(true);
    expect(isHubReference('ORG/REPO')).toBe(true);
    expect(isHubReference('tiny-chat')).toBe(false);
  });
});
