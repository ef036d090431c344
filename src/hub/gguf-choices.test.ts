import { describe, expect, it } from 'vitest';
import { buildGgufChoices, pickProjector } from './gguf-choices.js';
import type { HubFile } from './hub-client.js';

const sha = (n: number) => n.toString(16).padStart(64, '0');
const file = (path: string, size: number, n = size): HubFile => ({ path, size, sha256: sha(n) });

describe('buildGgufChoices', () => {
  it('makes one choice per level, smallest first, Q4_K_M recommended', () => {
    const { choices, projectors } = buildGgufChoices([
      { path: 'README.md', size: 10 },
      file('LFM2-350M-Q8_0.gguf', 800),
      file('LFM2-350M-Q4_K_M.gguf', 400),
      file('LFM2-350M-F16.gguf', 1600),
      file('LFM2-350M-Q2_K.gguf', 200),
      file('LFM2-350M-IQ4_XS.gguf', 350),
    ]);
    expect(projectors).toEqual([]);
    expect(choices.map((c) => c.quantization)).toEqual(['Q2_K', 'IQ4_XS', 'Q4_K_M', 'Q8_0', 'F16']);
    expect(choices.filter((c) => c.recommended).map((c) => c.quantization)).toEqual(['Q4_K_M']);
    expect(choices[2]).toEqual({
      quantization: 'Q4_K_M',
      files: [{ path: 'LFM2-350M-Q4_K_M.gguf', size: 400, sha256: sha(400) }],
      size: 400,
      downloadSize: 400,
      recommended: true,
      note: expect.stringMatching(/recommended/i),
    });
  });

  it('groups split parts in order and sums their sizes', () => {
    const { choices } = buildGgufChoices([
      file('Q8_0/Big-Q8_0-00003-of-00003.gguf', 100),
      file('Q8_0/Big-Q8_0-00001-of-00003.gguf', 300),
      file('Q8_0/Big-Q8_0-00002-of-00003.gguf', 200),
      file('Big-Q4_K_M.gguf', 250),
    ]);
    const q8 = choices.find((c) => c.quantization === 'Q8_0');
    expect(q8?.files.map((f) => f.path)).toEqual([
      'Q8_0/Big-Q8_0-00001-of-00003.gguf',
      'Q8_0/Big-Q8_0-00002-of-00003.gguf',
      'Q8_0/Big-Q8_0-00003-of-00003.gguf',
    ]);
    expect(q8?.size).toBe(600);
    expect(q8?.files.map((f) => f.sha256)).toEqual([sha(300), sha(200), sha(100)]);
  });

  it('leaves out a split set with a part missing', () => {
    const { choices } = buildGgufChoices([
      file('Big-Q8_0-00001-of-00002.gguf', 300),
      file('Big-Q4_K_M.gguf', 250),
    ]);
    expect(choices.map((c) => c.quantization)).toEqual(['Q4_K_M']);
  });

  it('pairs the vision projector with every choice, preferring F16', () => {
    const { choices, projectors } = buildGgufChoices([
      file('SmolVLM-256M-Q4_K_M.gguf', 100),
      file('SmolVLM-256M-Q8_0.gguf', 200),
      file('mmproj-SmolVLM-256M-Q8_0.gguf', 50),
      file('mmproj-SmolVLM-256M-F16.gguf', 90),
    ]);
    expect(projectors.map((p) => p.path)).toEqual([
      'mmproj-SmolVLM-256M-Q8_0.gguf',
      'mmproj-SmolVLM-256M-F16.gguf',
    ]);
    expect(choices.map((c) => [c.quantization, c.projector?.path, c.downloadSize])).toEqual([
      ['Q4_K_M', 'mmproj-SmolVLM-256M-F16.gguf', 190],
      ['Q8_0', 'mmproj-SmolVLM-256M-Q8_0.gguf', 250],
    ]);
  });

  it('marks the nearest level recommended when Q4_K_M is missing', () => {
    const { choices } = buildGgufChoices([
      file('M-Q8_0.gguf', 8),
      file('M-Q5_K_M.gguf', 5),
      file('M-Q2_K.gguf', 2),
    ]);
    expect(choices.find((c) => c.recommended)?.quantization).toBe('Q5_K_M');
  });

  it('keeps unlabelled GGUF files under their stem and skips non-models', () => {
    const { choices } = buildGgufChoices([
      { path: 'model.gguf', size: 5 },
      file('model.imatrix.gguf', 1),
      { path: 'config.json', size: 1 },
    ]);
    expect(choices).toEqual([
      {
        quantization: 'model',
        files: [{ path: 'model.gguf', size: 5 }],
        size: 5,
        downloadSize: 5,
        recommended: true,
        note: 'Unknown quantization level.',
      },
    ]);
  });

  it('keeps the root copy when a level appears twice', () => {
    const { choices } = buildGgufChoices([file('old/M-Q4_K_M.gguf', 1), file('M-Q4_K_M.gguf', 2)]);
    expect(choices.map((c) => c.files[0]?.path)).toEqual(['M-Q4_K_M.gguf']);
  });
});

describe('pickProjector', () => {
  it('falls back to the largest projector', () => {
    expect(
      pickProjector([file('mmproj-Q4_0.gguf', 1), file('mmproj-Q6_K.gguf', 2)], 'Q2_K')?.path,
    ).toBe('mmproj-Q6_K.gguf');
    expect(pickProjector([], 'Q4_K_M')).toBeUndefined();
  });
});
