import { describe, expect, it } from 'vitest';
import { formatParameterSize } from './format-parameter-size.js';

describe('formatParameterSize', () => {
  it.each([
    [354_483_968, '354M'],
    [1_170_340_608, '1.2B'],
    [8_030_261_248, '8.0B'],
    [13_015_864_320, '13B'],
    [52_000, '52K'],
    [999, '999'],
  ])('writes %d as %s', (count, text) => {
    expect(formatParameterSize(count)).toBe(text);
  });
});
