import { describe, expect, it } from 'vitest';
import { formatRelativeTime } from './format-relative-time.js';

describe('formatRelativeTime', () => {
  const now = Date.UTC(2026, 10, 21, 12);
  it('says just now within a minute, then minutes, hours and days', () => {
    expect(formatRelativeTime(now - 20_000, now)).toBe('just now');
    expect(formatRelativeTime(now - 5 * 60_000, now)).toBe('5 minutes ago');
    expect(formatRelativeTime(now - 3 * 3600_000, now)).toBe('3 hours ago');
    expect(formatRelativeTime(now - 26 * 3600_000, now)).toBe('yesterday');
    expect(formatRelativeTime(now - 40 * 24 * 3600_000, now)).toBe('last month');
  });
});
