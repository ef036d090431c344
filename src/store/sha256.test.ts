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
});
