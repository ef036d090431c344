import { describe, expect, it } from 'vitest';
import type { ConcurrencyRow, TransportRow } from './results.js';
import { checkTargets } from './targets.js';
import { engineRow as engine, figure as f } from './test-rows.js';

const transport = (path: TransportRow['path'], decode: number, ttft: number): TransportRow => ({
  size: '350M',
  path,
  threads: 2,
  available: true,
  decodeTokS: f(decode),
  ttftMs: f(ttft),
});

describe('checkTargets', () => {
  it('checks the service worker against the direct call, and leaves an unmeasured relay open', () => {
    const checks = checkTargets({
      engines: [],
      transport: [
        transport('direct engine call', 20, 500),
        transport('service worker', 19.5, 515),
        { size: '350M', path: 'relay', threads: 2, available: false, reason: 'no relay' },
      ],
      concurrency: [],
    });
    expect(checks.map((c) => [c.met, c.measured])).toEqual([
      [true, '19.5 against 20.0 tok/s (−2.5%)'],
      [true, '515 against 500 ms (+15 ms)'],
      [undefined, 'not measured: no relay'],
      [undefined, 'not measured: no relay'],
    ]);
  });

  it('checks the last turn against the same conversation from scratch, and decode against native', () => {
    const checks = checkTargets({
      engines: [
        engine({
          engine: 'llama.cpp (native)',
          backend: 'cpu',
          decodeTokS: f(40),
          promptTokS: f(200),
        }),
        engine({
          decodeTokS: f(12, 13, 14),
          promptTokS: f(18),
          ttftLastTurnMs: f(1000),
          ttftLastTurnColdMs: f(4000),
        }),
      ],
      transport: [],
      concurrency: [],
    });
    expect(checks).toEqual([
      expect.objectContaining({ met: false, measured: expect.stringContaining('(4.0x faster)') }),
      expect.objectContaining({ met: false, measured: '13.0 against 40.0 tok/s (33%)' }),
      expect.objectContaining({ met: false, measured: '18.0 against 200.0 tok/s (9%)' }),
    ]);
  });

  it("checks lmtab's CPU build against native on the same weight type", () => {
    const native = (quant: 'Q8_0' | 'Q4_K_M', decode: number, prompt: number) =>
      engine({
        engine: 'llama.cpp (native)',
        backend: 'cpu',
        quant,
        decodeTokS: f(decode),
        promptTokS: f(prompt),
      });
    const checks = checkTargets({
      engines: [
        native('Q8_0', 60, 300),
        native('Q4_K_M', 100, 400),
        engine({ engine: 'lmtab-cpu', quant: 'Q4_K_M', decodeTokS: f(50), promptTokS: f(70) }),
      ],
      transport: [],
      concurrency: [],
    });
    expect(checks.map((c) => [c.met, c.measured])).toEqual([
      [true, '50.0 against 100.0 tok/s (50%)'],
      [true, '70.0 against 400.0 tok/s (18%)'],
    ]);
    expect(checks[0]?.target).toContain('lmtab-cpu wasm 2 threads (350M Q4_K_M)');
  });

  it('compares 4 clients with 1 through the same transport', () => {
    const row = (clients: number, tokS: number): ConcurrencyRow => ({
      size: '350M',
      via: 'relay',
      clients,
      threads: 2,
      available: true,
      aggregateTokS: f(tokS),
    });
    const [check] = checkTargets({
      engines: [],
      transport: [],
      concurrency: [row(1, 10), row(4, 16), row(8, 20)],
    });
    expect(check).toMatchObject({ met: true, measured: '16.0 against 10.0 tok/s (1.60x)' });
  });

  it('compares 4 clients with 1 on the same file (runs before the quant was recorded were Q8_0)', () => {
    const row = (clients: number, tokS: number, quant?: 'Q4_K_M'): ConcurrencyRow => ({
      size: '350M',
      quant,
      via: 'service worker',
      clients,
      threads: 2,
      available: true,
      aggregateTokS: f(tokS),
    });
    const checks = checkTargets({
      engines: [],
      transport: [],
      concurrency: [row(1, 30), row(4, 33), row(1, 50, 'Q4_K_M'), row(4, 80, 'Q4_K_M')],
    });
    expect(checks.map((c) => [c.met, c.measured])).toEqual([
      [false, '33.0 against 30.0 tok/s (1.10x)'],
      [true, '80.0 against 50.0 tok/s (1.60x)'],
    ]);
    expect(checks[1]?.target).toContain('(350M Q4_K_M, 2 threads)');
  });
});
