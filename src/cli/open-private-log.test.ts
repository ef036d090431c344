import { closeSync, mkdtempSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPrivateLog } from './open-private-log.js';

/** A folder of its own for one test, removed when the test ends. */
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmtab-log-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('openPrivateLog', () => {
  it('makes the relay log and its folder readable by their owner only', () => {
    const home = join(scratch(), 'home');
    const fd = openPrivateLog(join(home, 'relay.log'));
    writeSync(fd, 'lmtab: open http://127.0.0.1:1234/#pair=secret\n');
    closeSync(fd);
    expect(statSync(join(home, 'relay.log')).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  it('tightens a log an older lmtab made 0644, keeping what it holds', () => {
    const home = scratch();
    const path = join(home, 'relay.log');
    writeFileSync(path, 'old line\n', { mode: 0o644 });
    const fd = openPrivateLog(path);
    writeSync(fd, 'new line\n');
    closeSync(fd);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(path).size).toBe('old line\nnew line\n'.length);
  });
});
