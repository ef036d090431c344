import { describe, expect, it } from 'vitest';
import { RateMeter } from './rate-meter.js';

describe('RateMeter', () => {
  it('averages over its window and needs some history first', () => {
    const meter = new RateMeter({ windowMs: 2000, minSpanMs: 500 });
    meter.add(1000, 0);
    expect(meter.rate(100)).toBeUndefined();
    for (let t = 100; t <= 1000; t += 100) meter.add(1000, t);
    expect(meter.rate(1000)).toBe(10_000);
    // A faster second: the window forgets the start.
    for (let t = 1100; t <= 4000; t += 100) meter.add(5000, t);
    expect(meter.rate(4000)).toBeCloseTo(50_000, -3);
    meter.reset();
    expect(meter.rate(4000)).toBeUndefined();
  });
});
