import { describe, expect, it } from 'vitest';
import { decideClientKeys } from './decide-client-keys.js';

const make = () => Promise.resolve('made-key');

describe('decideClientKeys', () => {
  it('loopback without a key: open', async () => {
    const decided = await decideClientKeys({ host: '127.0.0.1', apiKey: [], auth: true }, {}, make);
    expect(decided).toEqual({ keys: { keys: [], required: 'everyone' }, made: false });
  });

  it('--api-key and LMTAB_API_KEY: required from everyone', async () => {
    const decided = await decideClientKeys(
      { host: '127.0.0.1', apiKey: ['a'], auth: true },
      { LMTAB_API_KEY: 'b' },
      make,
    );
    expect(decided.keys).toEqual({ keys: ['a', 'b'], required: 'everyone' });
  });

  it('0.0.0.0 without a key: one is made and required from other devices, unless --no-auth', async () => {
    const lan = await decideClientKeys({ host: '0.0.0.0', apiKey: [], auth: true }, {}, make);
    expect(lan).toEqual({ keys: { keys: ['made-key'], required: 'remote' }, made: true });
    const open = await decideClientKeys({ host: '0.0.0.0', apiKey: [], auth: false }, {}, make);
    expect(open.keys.keys).toEqual([]);
  });

  it('--require-key: a key is made (or the given one kept) and required from everyone', async () => {
    const made = await decideClientKeys(
      { host: '127.0.0.1', apiKey: [], auth: true, requireKey: true },
      {},
      make,
    );
    expect(made).toEqual({ keys: { keys: ['made-key'], required: 'everyone' }, made: true });
    const given = await decideClientKeys(
      { host: '0.0.0.0', apiKey: ['a'], auth: true, requireKey: true },
      {},
      make,
    );
    expect(given).toEqual({ keys: { keys: ['a'], required: 'everyone' }, made: false });
  });
});
