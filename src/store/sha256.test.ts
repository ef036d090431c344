import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Sha256 } from './sha256.js';

describe('Sha256', () => {
  it('matches known digests', () => {
    expect(new Sha256().digestHex()).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(new Sha256().update(new TextEncoder().encode('abc')).digestHex()).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('gives the same digest whatever the chunking', () => {
    const data = randomBytes(10_000);
    const expected = createHash('sha256').update(data).digest('hex');
    for (const step of [1, 63, 64, 65, 1000, 4096]) {
      const hash = new Sha256();
      for (let i = 0; i < data.length; i += step) hash.update(data.subarray(i, i + step));
      expect(hash.digestHex()).toBe(expected);
    }
  });

  it('hashes runs of blocks larger than the WebAssembly input buffer as it hashes small pieces', () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const expected = createHash('sha256').update(data).digest('hex');
    expect(new Sha256().update(data).digestHex()).toBe(expected);
    for (const step of [1024 * 1024 + 1, 4096 + 5, 777]) {
      const hash = new Sha256();
      for (let i = 0; i < data.length; i += step) hash.update(data.subarray(i, i + step));
      expect(hash.digestHex()).toBe(expected);
    }
  });

  it('continues from a saved state as if never interrupted', () => {
    const data = randomBytes(5_000);
    const expected = createHash('sha256').update(data).digest('hex');
    for (const cut of [0, 64, 100, 4096, 4999]) {
      const first = new Sha256().update(data.subarray(0, cut));
      // Through JSON, as IndexedDB and a page reload would carry it.
      const state = JSON.parse(JSON.stringify(first.save())) as ReturnType<Sha256['save']>;
      const resumed = Sha256.restore(state).update(data.subarray(cut));
      expect(resumed.bytesHashed).toBe(data.length);
      expect(resumed.digestHex()).toBe(expected);
    }
  });

  it('refuses a malformed state', () => {
    const state = new Sha256().update(new Uint8Array(10)).save();
    expect(() => Sha256.restore({ ...state, length: 11 })).toThrow(/malformed/);
    expect(() => Sha256.restore({ ...state, h: [1, 2] })).toThrow(/malformed/);
  });
});
