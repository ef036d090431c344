import { describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['600s', 600],
    ['5m', 300],
    ['1h30m', 5400],
    ['2h', 7200],
    ['1h0m5s', 3605],
    [' 90s ', 90],
    ['0s', 0],
    [42, 42],
    [0, 0],
  ])('%j is %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each([['5'], ['5 minutes'], ['1.5h'], ['-5m'], [''], ['5d'], ['30s5m'], [-1], [1.5]])(
    'rejects %j with the expected form',
    (text) => {
      let caught: unknown;
      try {
        parseDuration(text, 'keepAlive');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(LmtabError);
      expect((caught as LmtabError).code).toBe('invalid_request');
      expect((caught as LmtabError).message).toMatch(/^keepAlive: expected .*"5m"/);
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [45, '45s'],
    [300, '5m'],
    [3600, '1h'],
    [5400, '1h30m'],
    [3661, '1h1m1s'],
  ])('%i seconds is %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
    expect(parseDuration(text)).toBe(seconds);
  });
});
