import { describe, expect, it } from 'vitest';
import { collect, formatSizeFlag, parseCount, parsePort, parseSize } from './parse-options.js';

describe('CLI option parsers', () => {
  it('parse ports and counts', () => {
    expect(parsePort('11434')).toBe(11434);
    expect(() => parsePort('65536')).toThrow('expected a port number from 0 to 65535, got "65536"');
    expect(() => parsePort('12ab')).toThrow();
    expect(parseCount('0')).toBe(0);
    expect(() => parseCount('-1')).toThrow('expected a whole number from 0 up, got "-1"');
  });

  it('parse sizes in binary units', () => {
    expect(parseSize('1024')).toBe(1024);
    expect(parseSize('512k')).toBe(512 * 1024);
    expect(parseSize('32MiB')).toBe(32 * 1024 * 1024);
    expect(parseSize('1.5g')).toBe(1.5 * 1024 ** 3);
    expect(() => parseSize('lots')).toThrow('expected a size in bytes');
  });

  it('write sizes back as the flags take them', () => {
    expect(formatSizeFlag(32 * 1024 * 1024)).toBe('32m');
    expect(formatSizeFlag(64 * 1024 ** 3)).toBe('64g');
    expect(formatSizeFlag(1536)).toBe('1536');
    expect(parseSize(formatSizeFlag(512 * 1024))).toBe(512 * 1024);
  });

  it('collect repeated values', () => {
    expect(collect('b', collect('a', []))).toEqual(['a', 'b']);
  });
});
