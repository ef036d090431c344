import { describe, expect, it } from 'vitest';
import { clientApiKey } from './client-api-key.js';

describe('clientApiKey', () => {
  const files = { '/home/me/.lmtab/relay-api-key': 'kept-key\n' };
  const read = (path: string) => {
    const text = (files as Record<string, string>)[path];
    if (text === undefined) throw new Error('ENOENT');
    return text;
  };
  const env = { LMTAB_HOME: '/home/me/.lmtab' };

  it('sends LMTAB_API_KEY first', () => {
    const key = clientApiKey(
      { ...env, LMTAB_API_KEY: 'given' },
      new URL('http://127.0.0.1:1234'),
      read,
    );
    expect(key).toBe('given');
  });

  it('reads the key the local relay keeps in LMTAB_HOME', () => {
    expect(clientApiKey(env, new URL('http://127.0.0.1:1234'), read)).toBe('kept-key');
    expect(clientApiKey(env, new URL('http://localhost:11434'), read)).toBe('kept-key');
    expect(clientApiKey({ LMTAB_HOME: '/elsewhere' }, new URL('http://127.0.0.1:1234'), read)).toBe(
      undefined,
    );
  });

  it('never sends this machine’s key to a relay elsewhere', () => {
    expect(clientApiKey(env, new URL('http://192.168.1.9:1234'), read)).toBeUndefined();
  });
});
