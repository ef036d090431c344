import { describe, expect, it } from 'vitest';
import { findBrowser, headlessArgs, inContainer, sandboxArgs } from './headless-engine.js';

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

describe('the headless engine keeps its sandbox outside containers', () => {
  it('finds containers by their marker files, variable or cgroup', () => {
    const none = () => false;
    const host = () => '0::/user.slice/user-1000.slice/session-2.scope\n';
    expect(inContainer({}, none, host)).toBe(false);
    expect(inContainer({}, (p) => p === '/.dockerenv', host)).toBe(true);
    expect(inContainer({}, (p) => p === '/run/.containerenv', host)).toBe(true);
    expect(inContainer({ container: 'podman' }, none, host)).toBe(true);
    expect(inContainer({}, none, () => '12:cpu:/kubepods/besteffort/pod1/abc\n')).toBe(true);
    expect(
      inContainer({}, none, () => {
        throw new Error('no /proc');
      }),
    ).toBe(false);
  });

  it('adds --no-sandbox only in a container', () => {
    expect(headlessArgs).not.toContain('--no-sandbox');
    expect(sandboxArgs(false)).toEqual([]);
    expect(sandboxArgs(true)).toContain('--no-sandbox');
  });
});
