import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimProfile, profileHolder } from './profile-lock.js';

describe('claimProfile', () => {
  let dir: string;
  const alive = new Set<number>();
  const isAlive = (pid: number) => alive.has(pid);

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'lmtab-profile-')), 'browser');
    alive.clear();
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('lets one relay hold a profile and tells a second one who holds it', () => {
    alive.add(1001);
    claimProfile(dir, { url: 'http://127.0.0.1:1234', pid: 1001, isAlive });
    expect(() => claimProfile(dir, { url: 'http://127.0.0.1:1240', pid: 1002, isAlive })).toThrow(
      `The browser profile ${dir} is in use by the lmtab relay at http://127.0.0.1:1234 (pid 1001): use that relay (LMTAB_HOST=127.0.0.1:1234 lmtab ...), or pass another --profile-dir.`,
    );
  });

  it('takes over the lock of a relay that died', () => {
    claimProfile(dir, { url: 'http://127.0.0.1:1234', pid: 1001, isAlive });
    alive.add(1002);
    const claim = claimProfile(dir, { url: 'http://127.0.0.1:1240', pid: 1002, isAlive });
    expect(profileHolder(dir, () => true)).toEqual({ pid: 1002, url: 'http://127.0.0.1:1240' });
    claim.release();
    expect(existsSync(join(dir, 'lmtab-relay.json'))).toBe(false);
  });

  it("names a browser outside lmtab from Chromium's singleton lock", () => {
    claimProfile(dir, { url: 'http://127.0.0.1:1234', pid: 1001, isAlive }).release();
    symlinkSync(`${hostname()}-4242`, join(dir, 'SingletonLock'));
    expect(profileHolder(dir, isAlive)).toBeUndefined();
    alive.add(4242);
    expect(() => claimProfile(dir, { url: 'http://127.0.0.1:1240', pid: 1002, isAlive })).toThrow(
      'is in use by a Chromium (pid 4242) outside lmtab: close that browser, or pass another --profile-dir.',
    );
  });
});
