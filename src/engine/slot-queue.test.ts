import { describe, expect, it } from 'vitest';
import { SlotQueue } from './slot-queue.js';

describe('SlotQueue', () => {
  it('grants slots up to its size, then in arrival order as slots are released', async () => {
    const slots = new SlotQueue(2);
    const order: string[] = [];
    const a = await slots.take();
    const b = await slots.take();
    const c = slots.take().then((release) => (order.push('c'), release));
    const d = slots.take().then((release) => (order.push('d'), release));
    expect(slots.queued).toBe(2);
    a();
    a();
    (await c)();
    b();
    await d;
    expect(order).toEqual(['c', 'd']);
    expect(slots.queued).toBe(0);
  });

  it('rejects a waiting request whose signal aborts, and skips it', async () => {
    const slots = new SlotQueue(1);
    const release = await slots.take();
    const controller = new AbortController();
    const aborted = slots.take(controller.signal);
    const next = slots.take();
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'aborted' });
    release();
    await expect(next).resolves.toBeTypeOf('function');
  });
});
