import { describe, expect, it } from 'vitest';
import { addRun } from './add-run.js';
import type { BenchResults, TransportRow } from './results.js';
import { engineRow as row, figure as f } from './test-rows.js';
import { benchSettings } from './workload.js';

const transport: TransportRow = {
  size: '350M',
  path: 'direct engine call',
  threads: 2,
  available: true,
  decodeTokS: f(10),
  ttftMs: f(1600),
};

function results(
  sizes: BenchResults['settings']['sizes'],
  at: string,
  parts: Partial<BenchResults>,
): BenchResults {
  return {
    schema: 1,
    startedAt: `${at}:00.000Z`,
    finishedAt: `${at}:59.000Z`,
    settings: { ...benchSettings(false), sizes },
    machine: {
      cpu: 'cpu',
      cores: 2,
      memoryGiB: 24,
      os: 'Linux',
      node: '20',
      browser: 'Chromium',
      loadAverage: at.endsWith('01') ? 1.1 : 0.4,
    },
    models: sizes.map((size) => ({ size, id: `m-${size}`, bytes: 1 })),
    memoryMethod: 'rss',
    engines: [],
    transport: [],
    concurrency: [],
    engineChoice: { checks: [], verdict: 'skipped' },
    targets: [],
    notMeasured: [],
    ...parts,
  };
}

describe('addRun', () => {
  const earlier = results(['350M'], '2026-11-22T01:01', {
    engines: [
      row({ engine: 'llama.cpp (native)', backend: 'cpu', decodeTokS: f(18) }),
      row({ decodeTokS: f(10) }),
    ],
    transport: [transport],
    notMeasured: [{ what: 'WebGPU (wllama)', why: 'no adapter' }],
  });
  const later = results(['1.2B'], '2026-11-22T03:10', {
    engines: [
      row({ size: '1.2B', engine: 'llama.cpp (native)', backend: 'cpu', decodeTokS: f(6) }),
      row({ size: '1.2B', decodeTokS: f(3) }),
    ],
    notMeasured: [{ what: 'WebGPU (wllama)', why: 'still no adapter' }],
  });

  it('adds the new rows, each with the time of its run, and keeps what the later run skipped', () => {
    const joined = addRun(earlier, later);
    expect(joined.engines.map((r) => [r.size, r.engine, r.measuredAt])).toEqual([
      ['350M', 'llama.cpp (native)', '2026-11-22T01:01:00.000Z'],
      ['350M', 'wllama', '2026-11-22T01:01:00.000Z'],
      ['1.2B', 'llama.cpp (native)', '2026-11-22T03:10:00.000Z'],
      ['1.2B', 'wllama', '2026-11-22T03:10:00.000Z'],
    ]);
    expect(joined.transport).toEqual([transport]);
    expect(joined.settings.sizes).toEqual(['350M', '1.2B']);
    expect(joined.models.map((m) => m.size)).toEqual(['350M', '1.2B']);
    expect(joined.startedAt).toBe(earlier.startedAt);
    expect(joined.finishedAt).toBe(later.finishedAt);
    expect(joined.notMeasured).toEqual([{ what: 'WebGPU (wllama)', why: 'still no adapter' }]);
    expect(joined.runs?.map((run) => [run.sizes, run.transports, run.loadAverage])).toEqual([
      [['350M'], true, 1.1],
      [['1.2B'], false, 0.4],
    ]);
    // The targets are checked again on the joined rows: both sizes' decode against native.
    const decodeTargets = joined.targets.filter((t) => t.target.includes('% of native'));
    expect(decodeTargets.map((t) => [t.target.slice(0, 22), t.met])).toEqual([
      ['wllama wasm 2 threads ', true],
      ['wllama wasm 2 threads ', true],
    ]);
    expect(decodeTargets.map((t) => t.measured.slice(0, 27))).toEqual([
      '10.0 against 18.0 tok/s (56',
      '3.0 against 6.0 tok/s (50%)',
    ]);
  });

  it('replaces a row measured again, and a third run keeps the history of both before it', () => {
    const again = results(['350M'], '2026-11-22T04:00', {
      engines: [row({ decodeTokS: f(11) })],
    });
    const joined = addRun(addRun(earlier, later), again);
    const wllama350 = joined.engines.filter((r) => r.size === '350M' && r.engine === 'wllama');
    expect(wllama350.map((r) => [r.decodeTokS?.median, r.measuredAt])).toEqual([
      [11, '2026-11-22T04:00:00.000Z'],
    ]);
    expect(joined.runs).toHaveLength(3);
  });

  it('keeps the rows and models of another weight type of the same size', () => {
    const q8 = results(['350M'], '2026-11-24T10:24', {
      engines: [
        row({ quant: 'Q8_0', decodeTokS: f(19) }),
        row({ quant: 'Q4_K_M', decodeTokS: f(15) }),
      ],
      models: [
        { size: '350M', quant: 'Q8_0', id: 'q8', bytes: 2 },
        { size: '350M', quant: 'Q4_K_M', id: 'q4', bytes: 1 },
      ],
    });
    const q4 = results(['350M'], '2026-11-24T12:36', {
      engines: [row({ quant: 'Q4_K_M', decodeTokS: f(26) })],
      models: [{ size: '350M', quant: 'Q4_K_M', id: 'q4', bytes: 1 }],
    });
    const joined = addRun(q8, q4);
    expect(joined.engines.map((r) => [r.quant, r.decodeTokS?.median])).toEqual([
      ['Q8_0', 19],
      ['Q4_K_M', 26],
    ]);
    expect(joined.models.map((m) => m.quant)).toEqual(['Q8_0', 'Q4_K_M']);
  });
});
