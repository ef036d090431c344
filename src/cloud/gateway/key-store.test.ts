import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import {
  createKeyFileReader,
  createKeyStore,
  defaultKeyFile,
  generateApiKey,
  hashApiKey,
  parseKeyFile,
  verifyApiKey,
} from './key-store.js';

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lmtab-keys-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('generateApiKey', () => {
  it('makes lmtab_ and 43 base64url characters, different each time', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^lmtab_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(key);
  });
});

describe('defaultKeyFile', () => {
  it('uses LMTAB_HOME, else ~/.lmtab', () => {
    expect(defaultKeyFile({ LMTAB_HOME: '/srv/lmtab' }, '/home/u')).toBe('/srv/lmtab/keys.json');
    expect(defaultKeyFile({}, '/home/u')).toBe('/home/u/.lmtab/keys.json');
  });
});

describe('createKeyStore', () => {
  it('creates a key shown once and stores only its salted hash', async () => {
    const file = join(folder, 'home', 'keys.json');
    const store = createKeyStore({ file, now: () => new Date('2026-01-02T03:04:05Z') });
    const { key, info } = await store.create({ name: 'laptop' });
    expect(info).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{12}$/),
      name: 'laptop',
      scope: 'api',
      created: '2026-01-02T03:04:05.000Z',
      revoked: null,
      hint: key.slice(-4),
    });
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(6, 20));
    const [record] = parseKeyFile(text).keys;
    expect(record?.hash).toBe(hashApiKey(key, record?.salt ?? ''));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(folder, 'home'))).mode & 0o777).toBe(0o700);
  });

  it('lists, revokes (twice is no change) and refuses unknown ids', async () => {
    let time = Date.parse('2026-01-01T00:00:00Z');
    const store = createKeyStore({
      file: join(folder, 'keys.json'),
      now: () => new Date((time += 1000)),
    });
    const first = await store.create({ name: 'a', scope: 'admin' });
    const second = await store.create();
    expect((await store.list()).map((key) => [key.id, key.name, key.scope])).toEqual([
      [first.info.id, 'a', 'admin'],
      [second.info.id, '', 'api'],
    ]);
    const revoked = await store.revoke(second.info.id);
    expect(revoked.revoked).toBe('2026-01-01T00:00:03.000Z');
    expect((await store.revoke(second.info.id)).revoked).toBe(revoked.revoked);
    const error = await store.revoke('key_nope').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LmtabError);
    expect((error as LmtabError).code).toBe('not_found');
    expect((error as LmtabError).message).toBe(
      `Expected the id of a key (${first.info.id}, ${second.info.id}), got "key_nope".`,
    );
  });

  it('refuses an unknown scope and a damaged file', async () => {
    const file = join(folder, 'keys.json');
    const store = createKeyStore({ file });
    await expect(store.create({ scope: 'root' as 'api' })).rejects.toThrow(
      'Expected a key scope (api or admin), got "root".',
    );
    await writeFile(file, '{"version": 2}');
    await expect(store.list()).rejects.toThrow(/Expected \{"version": 1, "keys"/);
    await writeFile(file, 'nope');
    await expect(store.list()).rejects.toThrow(/Expected JSON in the key file/);
  });
});

describe('verifyApiKey', () => {
  it('tells valid, revoked and unknown keys apart', async () => {
    const store = createKeyStore({ file: join(folder, 'keys.json') });
    const good = await store.create({ name: 'good' });
    const gone = await store.create({ name: 'gone' });
    await store.revoke(gone.info.id);
    const records = await store.records();
    expect(verifyApiKey(good.key, records)).toEqual({ status: 'valid', key: good.info });
    expect(verifyApiKey(gone.key, records)).toMatchObject({
      status: 'revoked',
      key: { id: gone.info.id },
    });
    expect(verifyApiKey(generateApiKey(), records)).toEqual({ status: 'unknown' });
    expect(verifyApiKey(`${good.key}x`, records)).toEqual({ status: 'unknown' });
    expect(verifyApiKey('', records)).toEqual({ status: 'unknown' });
    expect(verifyApiKey(good.key, [])).toEqual({ status: 'unknown' });
  });
});

describe('createKeyFileReader', () => {
  it('reads the file again when it changes, and a missing file as no keys', async () => {
    const file = join(folder, 'keys.json');
    const read = createKeyFileReader(file);
    expect(await read()).toEqual([]);
    const store = createKeyStore({ file });
    await store.create();
    expect(await read()).toHaveLength(1);
    await store.create();
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    expect(await read()).toHaveLength(2);
  });
});
