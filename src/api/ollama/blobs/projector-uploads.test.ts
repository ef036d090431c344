import { describe, expect, it } from 'vitest';
import { createProjectorUploads } from './projector-uploads.js';

describe('createProjectorUploads', () => {
  it('holds each projector for its time, and the newest ones beyond the limit', () => {
    let now = 0;
    const uploads = createProjectorUploads({ limit: 2, keepMs: 100, clock: () => now });
    const blob = (text: string) => new Blob([text]);
    uploads.put('a', blob('a'));
    now = 50;
    uploads.put('b', blob('b'));
    uploads.put('c', blob('c'));
    expect([uploads.get('a'), uploads.get('b')?.size, uploads.get('c')?.size]).toEqual([
      undefined,
      1,
      1,
    ]);
    now = 149;
    expect(uploads.get('b')).toBeDefined();
    now = 150;
    expect(uploads.get('b')).toBeUndefined();
    uploads.prune();
    expect(uploads.get('c')).toBeUndefined();
  });
});
