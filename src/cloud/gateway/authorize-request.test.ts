import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeRequest } from './authorize-request.js';
import { createKeyStore, generateApiKey } from './key-store.js';
import type { KeyRecord } from './key-store.js';

let folder: string;
let records: KeyRecord[];
let good: string;
let revoked: string;
let goodId: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lmtab-auth-'));
  const store = createKeyStore({ file: join(folder, 'keys.json') });
  const first = await store.create({ name: 'good' });
  const second = await store.create({ name: 'gone' });
  await store.revoke(second.info.id);
  good = first.key;
  goodId = first.info.id;
  revoked = second.key;
  records = await store.records();
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const expected =
  'This app is private: expected the header "Authorization: Key <API_KEY>" with an lmtab key, got';

describe('authorizeRequest', () => {
  it('accepts Key with a valid key (scheme in any case)', () => {
    expect(authorizeRequest(`Key ${good}`, 'private', records)).toMatchObject({
      ok: true,
      key: { id: goodId, name: 'good' },
    });
    expect(authorizeRequest(`key   ${good} `, 'private', records).ok).toBe(true);
  });

  it('lets anyone into a public app', () => {
    expect(authorizeRequest(undefined, 'public', [])).toEqual({ ok: true, key: undefined });
    expect(authorizeRequest('Bearer whatever', 'public', records).ok).toBe(true);
  });

  it.each([
    ['missing', undefined, 'no Authorization header'],
    ['empty', '  ', 'no Authorization header'],
    [
      'Bearer',
      () => `Bearer ${good}`,
      '"Authorization: Bearer ..." (lmtab keys go after Key, not Bearer)',
    ],
    ['bare key', () => good, 'a value with no scheme (put "Key " before the key)'],
    ['Basic', 'Basic dXNlcjpwYXNz', 'the scheme "Basic"'],
    ['Key alone', 'Key', '"Key" with no key after it'],
    ['wrong key', () => `Key ${generateApiKey()}`, 'a key that is not valid'],
    ['garbage', 'Key hunter2', 'a key that is not valid'],
    ['revoked key', () => `Key ${revoked}`, 'a key that has been revoked'],
  ])('refuses %s with 401 unauthorized', (_name, header, got) => {
    const value = typeof header === 'function' ? header() : header;
    const decision = authorizeRequest(value, 'private', records);
    expect(decision.ok).toBe(false);
    if (decision.ok) return;
    expect(decision.error.code).toBe('unauthorized');
    expect(decision.error.status).toBe(401);
    expect(decision.error.message).toBe(`${expected} ${got}.`);
    expect(decision.error.message).not.toContain(good);
    expect(decision.error.message).not.toContain(revoked);
  });
});
