import { describe, expect, it } from 'vitest';
import { featuredModels } from './featured-models.js';
import { isKnownQuantization } from './quantization.js';
import { isRepoId } from './repo-id.js';

describe('featuredModels', () => {
  it('names distinct LiquidAI GGUF repositories with a known level and a size, then rerankers', () => {
    const repos = featuredModels.map((m) => m.repo);
    expect(new Set(repos).size).toBe(repos.length);
    const chat = featuredModels.filter((m) => !m.capabilities.includes('rerank'));
    const rerankers = featuredModels.filter((m) => m.capabilities.includes('rerank'));
    expect(featuredModels.slice(-rerankers.length)).toEqual(rerankers);
    for (const model of rerankers) {
      expect(isRepoId(model.repo), model.repo).toBe(true);
      expect(model.capabilities).toEqual(['rerank']);
      expect(model.repo).toMatch(/reranker.*-GGUF$/);
    }
    for (const model of chat) {
      expect(isRepoId(model.repo), model.repo).toBe(true);
      expect(model.repo).toMatch(/^LiquidAI\/LFM(2|2\.5|3)-.+-GGUF$/);
      expect(isKnownQuantization(model.quantization), model.quantization).toBe(true);
      expect(model.sizeBytes).toBeGreaterThan(1e8);
      expect(model.capabilities).toContain('text');
      expect(model.capabilities.includes('vision')).toBe(/-VL-/.test(model.repo));
    }
  });

  it('covers the family the issue asks for: text, vision, MoE and thinking', () => {
    const has = (c: string) => featuredModels.some((m) => m.capabilities.includes(c as never));
    expect(['vision', 'moe', 'thinking', 'tools', 'rerank'].every(has)).toBe(true);
    expect(featuredModels[0]?.repo).toBe('LiquidAI/LFM2-350M-GGUF');
  });
});
