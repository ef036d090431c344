import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadOrCreateSecret } from './relay-secret.js';

describe('loadOrCreateSecret', () => {
  it('makes a 0600 file once, keeps it, and replaces one that holds anything else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lmtab-secret-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'home', 'relay-secret');
    const made = await loadOrCreateSecret(file);
    expect(made).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateSecret(file)).toBe(made);
    await writeFile(file, 'guessable', { mode: 0o644 });
    const replaced = await loadOrCreateSecret(file);
    expect(replaced).not.toBe(made);
    expect((await readFile(file, 'utf8')).trim()).toBe(replaced);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
