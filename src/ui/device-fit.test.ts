import { describe, expect, it } from 'vitest';
import { deviceFit } from './device-fit.js';

describe('deviceFit', () => {
  it('fits a small model on a device with room', () => {
    expect(deviceFit(229e6, { memoryGb: 8, freeStorage: 10e9 })).toEqual({
      memory: 'yes',
      storage: 'yes',
      text: 'Fits this device.',
    });
  });

  it('calls a model tight when it needs more than half the memory', () => {
    const fit = deviceFit(5.04e9, { memoryGb: 8, freeStorage: 10e9 });
    expect(fit.memory).toBe('tight');
    expect(fit.text).toBe(
      'Needs about 6.0 GB of memory, a lot: this device reports 8 GB, so it may run slowly.',
    );
  });

  it('says what is missing when neither memory nor storage fits', () => {
    const fit = deviceFit(5.04e9, { memoryGb: 4, freeStorage: 1e9 });
    expect(fit).toMatchObject({ memory: 'no', storage: 'no' });
    expect(fit.text).toBe(
      'Needs 5.0 GB of storage; 1.0 GB free. Needs about 6.0 GB of memory; this device reports 4 GB.',
    );
  });

  it('says unknown when the browser tells nothing', () => {
    expect(deviceFit(1e9, {})).toEqual({
      memory: 'unknown',
      storage: 'unknown',
      text: 'Needs about 1.2 GB of memory.',
    });
  });
});
