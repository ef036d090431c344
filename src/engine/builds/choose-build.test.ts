import { describe, expect, it } from 'vitest';
import type { GgufMetadataValue } from '../../store/index.js';
import { chooseBuild, type BuildChoiceInput } from './choose-build.js';
import { buildNames } from './cpu-build.js';

const gb = 1e9;

/** LFM2-2.6B's layout: 30 blocks, 8 of them attention with 8 KV heads of 64. */
const lfm2 = new Map<string, GgufMetadataValue>([
  ['general.architecture', 'lfm2'],
  ['lfm2.block_count', 30],
  ['lfm2.embedding_length', 2048],
  ['lfm2.feed_forward_length', 10752],
  ['lfm2.attention.head_count', 32],
  ['lfm2.attention.head_count_kv', Array.from({ length: 30 }, (_, i) => (i % 4 === 2 ? 8 : 0))],
]);
const projector = (entries: [string, GgufMetadataValue][]) =>
  new Map<string, GgufMetadataValue>(entries);
const lfm3vl = projector([['clip.projector_type', 'lfm3vl']]);
const audio = projector([
  ['clip.projector_type', 'lfm2a'],
  ['clip.has_audio_encoder', true],
]);
const vision = projector([['clip.projector_type', 'lfm2']]);

const base: BuildChoiceInput = {
  backend: 'wasm',
  label: 'm',
  fileBytes: [0.4 * gb],
  metadata: lfm2,
  contextLength: 4096,
  heads: { key: 64, value: 64 },
  device: { lmtabBuild: true, memory64: true },
};

describe('chooseBuild', () => {
  it.each<[string, Partial<BuildChoiceInput>, string, RegExp | undefined]>([
    ['a WebGPU load: the stock build', { backend: 'webgpu' }, buildNames.stock, undefined],
    ['a CPU load: lmtab’s build', {}, buildNames.cpu, undefined],
    ['a vision projector lmtab’s build knows', { projector: vision }, buildNames.cpu, undefined],
    [
      'the person chose wllama’s build',
      { device: { lmtabBuild: false, memory64: true } },
      buildNames.stock,
      undefined,
    ],
    ['a projector newer than lmtab’s llama.cpp', { projector: lfm3vl }, buildNames.stock, /lfm3vl/],
    ['a projector that hears', { projector: audio }, buildNames.stock, /audio/],
    [
      'a projector that hears, on wllama’s build by choice',
      { projector: audio, device: { lmtabBuild: false, memory64: true } },
      buildNames.stock,
      undefined,
    ],
    ['2.73 GB: still wasm32', { fileBytes: [2.73 * gb] }, buildNames.cpu, undefined],
    ['4.7 GB: memory64', { fileBytes: [4.73 * gb] }, buildNames.memory64, undefined],
  ])('%s', (_, change, build, reason) => {
    const choice = chooseBuild({ ...base, ...change });
    expect(choice.build).toBe(build);
    if (reason) expect(choice.reason).toMatch(reason);
    else expect(choice.reason).toBeUndefined();
  });

  it.each<[string, Partial<BuildChoiceInput>]>([
    [
      '4.7 GB where the browser has no memory64',
      { fileBytes: [4.73 * gb], device: { lmtabBuild: true, memory64: false } },
    ],
    [
      '4.7 GB with a projector only the stock wasm32 build serves',
      { fileBytes: [4.73 * gb], projector: audio },
    ],
  ])('refuses %s, with the sizes', (_, change) => {
    expect(() => chooseBuild({ ...base, ...change })).toThrow(
      expect.objectContaining({
        code: 'model_too_large',
        message: expect.stringContaining('4.7 GB'),
      }),
    );
  });
});
