import { describe, expect, it } from 'vitest';
import { findBrowser } from './headless-engine.js';

describe('findBrowser', () => {
  it('takes LMTAB_BROWSER first, and says when it does not exist', () => {
    expect(findBrowser({ LMTAB_BROWSER: '/opt/chrome' }, (p) => p === '/opt/chrome')).toBe(
      '/opt/chrome',
    );
    expect(() => findBrowser({ LMTAB_BROWSER: '/opt/chrome' }, () => false)).toThrow(
      'LMTAB_BROWSER is "/opt/chrome", which does not exist',
    );
  });

  it('looks for Debian’s chromium, then other common paths', () => {
    expect(
      findBrowser({}, (p) => p === '/usr/bin/chromium' || p === '/usr/bin/google-chrome'),
    ).toBe('/usr/bin/chromium');
    expect(findBrowser({}, (p) => p === '/usr/bin/google-chrome')).toBe('/usr/bin/google-chrome');
  });

  it('names where it looked when there is no browser', () => {
    expect(() => findBrowser({}, () => false)).toThrow(
      /No Chrome or Chromium found for --headless: looked for \/usr\/bin\/chromium, .*LMTAB_BROWSER/,
    );
  });
});
