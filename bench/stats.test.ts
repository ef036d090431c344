import { describe, expect, it } from 'vitest';
import { perSecond, summarize } from './stats.js';

describe('summarize', () => {
  it('gives the median of an odd and an even number of runs, with min and max', () => {
    expect(summarize([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3, runs: [3, 1, 2] });
    expect(summarize([4, 1, 2, 3])).toMatchObject({ median: 2.5, min: 1, max: 4 });
  });

  it('drops runs that are not numbers and gives nothing for no runs', () => {
    expect(summarize([NaN, 5])).toEqual({ median: 5, min: 5, max: 5, runs: [5] });
    expect(summarize([])).toBeUndefined();
  });
});

describe('perSecond', () => {
  it('converts a count over milliseconds, NaN for no time', () => {
    expect(perSecond(128, 2000)).toBe(64);
    expect(perSecond(1, 0)).toBeNaN();
  });
});
