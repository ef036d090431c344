import { afterEach, describe, expect, it, vi } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { createEnginePool } from './engine-pool.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createEnginePool', () => {
  it('gives the least busy engine, then the one that served fewer', async () => {
    const pool = createEnginePool<string>();
    pool.add('a', 2);
    pool.add('b', 2);
    const first = await pool.acquire();
    const second = await pool.acquire();
    expect([first.engine, second.engine].sort()).toEqual(['a', 'b']);
    first.release();
    const third = await pool.acquire();
    expect(third.engine).toBe(first.engine);
    second.release();
    third.release();
    // Both idle: the one that served fewer goes first.
    expect((await pool.acquire()).engine).toBe(second.engine);
  });

  it('an engine set aside gets no request, keeps its leases, and is taken back with its slots', async () => {
    const pool = createEnginePool<string>();
    pool.add('a', 2);
    pool.add('b', 2);
    const onA = await pool.acquire();
    expect(onA.engine).toBe('a');
    pool.setAside('a', true);
    expect(pool.stats()).toMatchObject({ aside: 1, engines: [{ capacity: 2, active: 0 }] });
    expect((await pool.acquire()).engine).toBe('b');
    expect((await pool.acquire()).engine).toBe('b');
    // b is full and a is aside: the next waits, and a takes it once it answers again.
    const waiting = pool.acquire();
    expect(pool.stats().waiting).toBe(1);
    pool.setAside('a', false);
    expect((await waiting).engine).toBe('a');
    onA.release();
    expect(pool.stats()).toMatchObject({ aside: 0, waiting: 0 });
    expect(pool.stats().engines.find((e) => e.served === 2)).toMatchObject({ active: 1 });
  });

  it('while every engine is aside, requests wait for one (starting one if it can), then fail after the engine wait', async () => {
    vi.useFakeTimers();
    const startEngine = vi.fn(() => Promise.resolve());
    const pool = createEnginePool<string>({ startEngine, engineWaitMs: 1000 });
    pool.add('a', 1);
    pool.setAside('a', true);
    const first = pool.acquire();
    expect(startEngine).toHaveBeenCalledTimes(1);
    pool.add('headless', 1);
    expect((await first).engine).toBe('headless');

    const alone = createEnginePool<string>({ engineWaitMs: 1000 });
    alone.add('a', 1);
    alone.setAside('a', true);
    const held = alone.acquire().catch((error: LmtabError) => error);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await held).toMatchObject({
      code: 'no_engine',
      message: expect.stringContaining('answer nothing'),
    });
  });

  it('queues when every slot is taken and answers engine_busy when the queue is full', async () => {
    const pool = createEnginePool<string>({ queueLimit: 1 });
    pool.add('a', 1);
    const held = await pool.acquire();
    const queued = pool.acquire();
    await expect(pool.acquire()).rejects.toMatchObject({ code: 'engine_busy', status: 503 });
    expect(pool.stats()).toMatchObject({ waiting: 1, engines: [{ active: 1 }] });
    held.release();
    expect((await queued).engine).toBe('a');
    expect(pool.stats()).toMatchObject({ waiting: 0, engines: [{ active: 1, served: 2 }] });
  });

  it('a release counts once, and a lease of a removed engine is a no-op', async () => {
    const pool = createEnginePool<string>();
    pool.add('a', 2);
    const lease = await pool.acquire();
    lease.release();
    lease.release();
    expect(pool.stats().engines[0].active).toBe(0);
    const stale = await pool.acquire();
    pool.remove('a');
    pool.add('a', 2);
    stale.release();
    expect(pool.stats().engines[0].active).toBe(0);
  });

  it('resizes an engine: more slots serve the queue at once, fewer stop new leases', async () => {
    const pool = createEnginePool<string>();
    pool.add('a', 1);
    const held = await pool.acquire();
    let granted = false;
    const queued = pool.acquire().then((lease) => ((granted = true), lease));
    await Promise.resolve();
    expect(granted).toBe(false);
    pool.resize('a', 2);
    expect((await queued).engine).toBe('a');
    pool.resize('a', 1);
    held.release();
    expect(pool.stats().engines[0]).toMatchObject({ capacity: 1, active: 1 });
    pool.resize('gone', 3);
    expect(pool.stats().engines).toHaveLength(1);
  });

  it('answers no_engine with the hint when nothing is connected and nothing starts', async () => {
    const pool = createEnginePool<string>({ noEngineHint: 'Open the app.' });
    await expect(pool.acquire()).rejects.toThrow(
      'No engine tab is connected to this relay. Open the app.',
    );
  });

  it('a queued request leaves the queue when its client aborts', async () => {
    const pool = createEnginePool<string>();
    pool.add('a', 1);
    await pool.acquire();
    const controller = new AbortController();
    const queued = pool.acquire({ signal: controller.signal });
    controller.abort();
    await expect(queued).rejects.toMatchObject({ code: 'aborted' });
    expect(pool.stats().waiting).toBe(0);
  });

  it('queued requests fail with no_engine when the last engine goes away', async () => {
    const pool = createEnginePool<string>();
    pool.add('a', 1);
    await pool.acquire();
    const queued = pool.acquire();
    pool.remove('a');
    await expect(queued).rejects.toMatchObject({ code: 'no_engine' });
  });

  it('starts an engine once for the requests that wait, and serves them when it joins', async () => {
    const startEngine = vi.fn(() => Promise.resolve());
    const pool = createEnginePool<string>({ startEngine });
    const waiting = [pool.acquire(), pool.acquire()];
    expect(startEngine).toHaveBeenCalledTimes(1);
    pool.add('headless', 4);
    const leases = await Promise.all(waiting);
    expect(leases.map((l) => l.engine)).toEqual(['headless', 'headless']);
  });

  it('fails the waiting requests when starting an engine fails, and tries again later', async () => {
    const startEngine = vi
      .fn<() => Promise<void>>()
      .mockRejectedValueOnce(new LmtabError('no_engine', 'No Chrome or Chromium found.'))
      .mockResolvedValue(undefined);
    const pool = createEnginePool<string>({ startEngine });
    await expect(pool.acquire()).rejects.toThrow(
      'Starting an engine failed: No Chrome or Chromium found.',
    );
    const next = pool.acquire();
    expect(startEngine).toHaveBeenCalledTimes(2);
    pool.add('headless', 1);
    expect((await next).engine).toBe('headless');
  });

  it('gives up on a started engine that does not connect in time', async () => {
    vi.useFakeTimers();
    const pool = createEnginePool<string>({
      startEngine: () => Promise.resolve(),
      engineWaitMs: 5000,
    });
    const waiting = pool.acquire();
    const failed = expect(waiting).rejects.toThrow('No engine connected within 5 s.');
    await vi.advanceTimersByTimeAsync(5000);
    await failed;
  });

  it('once closed, fails the queued requests and every later one with the reason', async () => {
    const pool = createEnginePool<string>();
    pool.add('a', 1);
    await pool.acquire();
    const queued = pool.acquire();
    const reason = new LmtabError('no_engine', 'The relay is stopping.');
    pool.close(reason);
    await expect(queued).rejects.toBe(reason);
    await expect(pool.acquire()).rejects.toBe(reason);
    expect(pool.stats().waiting).toBe(0);
  });
});
