import { LmtabError } from '../errors/index.js';

/**
 * Hands out a fixed number of slots in arrival order. wllama 3.8.1 never answers a request sent
 * while all its `n_parallel` slots are busy (the fifth of five concurrent requests hangs), so the
 * engine waits here for a free slot before it sends one.
 */
export class SlotQueue {
  private free: number;
  private readonly waiting: Array<{ grant(): void }> = [];

  /** @param size Slots, at least 1. */
  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  /** Waits for a slot; rejects with `aborted` when `signal` aborts first. Call the result once. */
  async take(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free -= 1;
    } else {
      await new Promise<void>((resolve, reject) => {
        const waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(
            new LmtabError('aborted', 'The request was aborted while waiting for a free slot.'),
          );
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(waiter);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.free += 1;
    };
  }

  /** Requests waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }
}
