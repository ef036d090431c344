import { describe, expect, it } from 'vitest';
import { memoryNeed, modelFit } from '../../../engine/index.js';
import { pullFitStatus } from './pull-fit-status.js';

const lines = (fileBytes: number[], gpu?: boolean, memory64 = false) =>
  pullFitStatus(
    modelFit(memoryNeed({ fileBytes }), { memory64, ...(gpu === undefined ? {} : { gpu }) }),
  );

describe('pullFitStatus', () => {
  it('says a small model fits the CPU engine, with what the GPU would need', () => {
    expect(lines([229e6])).toEqual([
      "CPU: fits, needs about 411.1 MB of the engine's 4 GiB",
      'GPU: needs about 229.0 MB of GPU memory',
    ]);
  });

  it('names a file the CPU engine cannot read, and a GPU that is missing', () => {
    expect(lines([5.04e9], false)).toEqual([
      'CPU: does not fit, a file of 5.0 GB; the engine reads up to 4 GiB',
      'GPU: no WebGPU adapter llama.cpp can use in this browser.',
    ]);
  });

  it('names the total where files each readable add up past the address space', () => {
    expect(lines([3.9e9, 0.6e9])[0]).toMatch(
      /^CPU: does not fit, needs about 4\.\d GB; the engine holds 4 GiB$/,
    );
  });

  it('says a model past 4 GiB fits the memory64 engine where the browser has one', () => {
    expect(lines([5.04e9], undefined, true)[0]).toMatch(
      /^CPU: fits the memory64 engine \(slower\), needs about 5\.\d GB$/,
    );
    expect(lines([17e9, 1e9], undefined, true)[0]).toMatch(
      /^CPU: does not fit, needs about \d+\.\d GB; the engines hold 16 GiB$/,
    );
  });

  it('keeps each line short enough for an 80-column terminal with a spinner', () => {
    for (const line of [
      ...lines([5.04e9], false),
      ...lines([3.9e9, 0.6e9]),
      ...lines([1e6]),
      ...lines([5.04e9], undefined, true),
      ...lines([17e9, 1e9], undefined, true),
    ]) {
      expect(line.length).toBeLessThanOrEqual(76);
    }
  });
});
