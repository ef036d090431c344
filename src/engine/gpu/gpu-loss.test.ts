import { describe, expect, it } from 'vitest';
import type { Capabilities } from './capability-probe.js';
import { withGpuLossReason } from './gpu-loss.js';

const loss = {
  at: Date.UTC(2026, 11, 7, 21, 0, 0),
  line: 'lmtab-gpu: device lost (unknown): gone',
};
const noAdapter: Capabilities = {
  cores: 2,
  crossOriginIsolated: true,
  noAdapterReason: 'no WebGPU adapter is available',
};

describe('withGpuLossReason', () => {
  it('says that the adapter went missing after a GPU loss, and what brings it back', () => {
    expect(withGpuLossReason(noAdapter, loss).noAdapterReason).toBe(
      'no WebGPU adapter is available since the GPU device was lost at 2026-12-07T21:00:00.000Z ' +
        '("lmtab-gpu: device lost (unknown): gone"): Chromium withholds WebGPU from a page after ' +
        'repeated GPU crashes; reloading the tab, or restarting the browser after a third crash, ' +
        'brings it back',
    );
  });

  it('leaves capabilities with an adapter, or without a loss, as they are', () => {
    expect(withGpuLossReason(noAdapter, undefined)).toBe(noAdapter);
    const withAdapter: Capabilities = {
      cores: 2,
      crossOriginIsolated: true,
      gpu: { adapter: 'mesa software' } as Capabilities['gpu'],
    };
    expect(withGpuLossReason(withAdapter, loss)).toBe(withAdapter);
  });
});
