import { describe, expect, it } from 'vitest';
import { checkClientKey, presentedKey } from './client-auth.js';

describe('checkClientKey', () => {
  const given = { keys: ['k1', 'k2'], required: 'everyone' as const };

  it('with --api-key: every client needs one of the keys, by Bearer or x-api-key', () => {
    expect(checkClientKey({}, '127.0.0.1', given)?.status).toBe(401);
    expect(checkClientKey({ authorization: 'Bearer nope' }, '127.0.0.1', given)?.message).toContain(
      'not one of this relay',
    );
    expect(checkClientKey({ authorization: 'Bearer k2' }, '127.0.0.1', given)).toBeUndefined();
    expect(checkClientKey({ 'x-api-key': 'k1' }, '10.0.0.3', given)).toBeUndefined();
    expect(checkClientKey({ authorization: 'Basic azE6' }, '127.0.0.1', given)?.code).toBe(
      'unauthorized',
    );
  });

  it('--host 0.0.0.0 without --api-key: other devices need the made key, this machine does not', () => {
    const made = { keys: ['made'], required: 'remote' as const };
    expect(checkClientKey({}, '192.168.1.20', made)?.status).toBe(401);
    expect(checkClientKey({}, '::ffff:192.168.1.20', made)?.status).toBe(401);
    expect(checkClientKey({ authorization: 'Bearer made' }, '192.168.1.20', made)).toBeUndefined();
    expect(checkClientKey({}, '127.0.0.1', made)).toBeUndefined();
    expect(checkClientKey({}, '::1', made)).toBeUndefined();
    expect(checkClientKey({}, '::ffff:127.0.0.1', made)).toBeUndefined();
  });

  it('with a made key, a loopback request carrying proxy headers is not local and needs it', () => {
    const made = { keys: ['made'], required: 'remote' as const };
    for (const header of [
      { forwarded: 'for=203.0.113.9' },
      { 'x-forwarded-for': '203.0.113.9' },
      { 'x-real-ip': '203.0.113.9' },
      { via: '1.1 caddy' },
    ]) {
      expect(checkClientKey(header, '127.0.0.1', made)?.status).toBe(401);
      expect(checkClientKey({ ...header, authorization: 'Bearer made' }, '127.0.0.1', made)).toBe(
        undefined,
      );
    }
  });

  it('without keys the API is open', () => {
    expect(checkClientKey({}, '192.168.1.20', { keys: [], required: 'everyone' })).toBeUndefined();
  });

  it('reads the presented key', () => {
    expect(presentedKey({ authorization: 'bearer abc ' })).toBe('abc');
    expect(presentedKey({})).toBeUndefined();
  });
});
