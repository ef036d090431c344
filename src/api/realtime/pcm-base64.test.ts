import { describe, expect, it } from 'vitest';
import { decodePcm16Base64, encodePcm16 } from './pcm-base64.js';

describe('decodePcm16Base64', () => {
  it('reads back the samples encodePcm16 wrote, signs and extremes included', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234, -4321]);
    expect([...decodePcm16Base64(encodePcm16(samples))]).toEqual([...samples]);
  });
});
