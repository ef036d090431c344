import { describe, expect, it } from 'vitest';
import { isLocalHost, resolveHost } from './resolve-host.js';

describe('resolveHost', () => {
  it.each([
    [undefined, 'http://127.0.0.1:1234'],
    ['', 'http://127.0.0.1:1234'],
    ['0.0.0.0', 'http://0.0.0.0:1234'],
    ['example.lan:11434', 'http://example.lan:11434'],
    [':41330', 'http://127.0.0.1:41330'],
    ['http://box:8080/', 'http://box:8080'],
    ['https://lmtab.example.com', 'https://lmtab.example.com'],
    ['http://box', 'http://box'],
    ['[::1]:9000', 'http://[::1]:9000'],
    ['box:80', 'http://box'],
  ])('%j -> %s', (value, url) => {
    expect(resolveHost(value).href.replace(/\/$/, '')).toBe(url);
  });

  it('refuses other schemes and non-addresses', () => {
    expect(() => resolveHost('ftp://box')).toThrow('LMTAB_HOST must use http or https');
    expect(() => resolveHost('http://a b')).toThrow(/^LMTAB_HOST is not an address/);
  });

  it('tells local addresses apart', () => {
    expect(isLocalHost(resolveHost(undefined))).toBe(true);
    expect(isLocalHost(resolveHost('localhost:5'))).toBe(true);
    expect(isLocalHost(resolveHost('box.lan'))).toBe(false);
  });
});
