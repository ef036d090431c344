import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ModelRecord } from '../store/index.js';
import { createResidency } from './residency.js';

interface Loaded {
  model: string;
  contextLength: number;
  serial: number;
}

function setup() {
  const events: string[] = [];
  let serial = 0;
  const residency = createResidency<Loaded>({
    store: {
      get: async (id: string) =>
        (id === 'missing' ? undefined : ({ id } as ModelRecord)) satisfies ModelRecord | undefined,
    },
    load: async (record, contextLength) => {
      events.push(`load ${record.id} ${contextLength}`);
      return { model: record.id, contextLength: contextLength ?? 0, serial: ++serial };
    },
    unload: async (current) => void events.push(`unload ${current.model}`),
    defaultContextLength: 4096,
    keepAliveMs: 60_000,
    clock: Date.now,
  });
  return { residency, events };
}

describe('createResidency', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('shares a resident model, and swaps it only once its requests end', async () => {
    const { residency, events } = setup();
    const first = await residency.acquire('a', undefined);
    expect(first.loadMs).toBeGreaterThanOrEqual(0);
    const again = await residency.acquire('a', undefined);
    expect(again.current).toBe(first.current);
    expect(first.current.active).toBe(2);

    const other = residency.acquire('b', undefined);
    residency.release(first.current);
    await vi.advanceTimersByTimeAsync(0);
    expect(events).toEqual(['load a 4096']);
    residency.release(again.current);
    const b = await other;
    expect(b.current.model).toBe('b');
    expect(events).toEqual(['load a 4096', 'unload a', 'load b 4096']);
  });

  it('unloads an idle model after the keep-alive, and reloads for a larger context', async () => {
    const { residency, events } = setup();
    const small = await residency.acquire('a', 2048);
    residency.release(small.current);
    // No context asked: the resident model serves as it is.
    const any = await residency.acquire('a', undefined);
    expect(any.current).toBe(small.current);
    residency.release(any.current);
    const large = await residency.acquire('a', 8192);
    expect(large.current.contextLength).toBe(8192);
    residency.release(large.current);
    expect(events).toEqual(['load a 2048', 'unload a', 'load a 8192']);

    await vi.advanceTimersByTimeAsync(59_000);
    expect(residency.resident()?.model).toBe('a');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(residency.resident()).toBeUndefined();
    expect(events.at(-1)).toBe('unload a');
  });

  it('unloads a broken model when its last request ends, and loads it afresh next time', async () => {
    const { residency, events } = setup();
    const { current } = await residency.acquire('a', undefined);
    current.broken = true;
    residency.release(current);
    await vi.advanceTimersByTimeAsync(0);
    expect(residency.resident()).toBeUndefined();
    const next = await residency.acquire('a', undefined);
    expect(next.current.serial).toBe(2);
    expect(events).toEqual(['load a 4096', 'unload a', 'load a 4096']);
  });

  it('answers model_not_found for a model the store lacks', async () => {
    const { residency } = setup();
    await expect(residency.acquire('missing', undefined)).rejects.toMatchObject({
      code: 'model_not_found',
      param: 'model',
    });
  });
});
