import { describe, expect, it } from 'vitest';
import { formatParameterCount } from './format-parameter-count.js';

describe('formatParameterCount', () => {
  it('uses the suffixes of model names', () => {
    expect(formatParameterCount(354_483_968)).toBe('354M');
    expect(formatParameterCount(1_170_000_000)).toBe('1.2B');
    expect(formatParameterCount(86_016)).toBe('86K');
    expect(formatParameterCount(12)).toBe('12');
  });
});
