import { LmtabError, toLmtabError } from '../../errors/index.js';
import { defaultEngineWaitMs, defaultQueueLimit } from '../relay-defaults.js';

/** Options of {@link createEnginePool}. */
export interface EnginePoolOptions {
  /** Requests that may wait for a free slot; one more is refused with `engine_busy`. Default {@link defaultQueueLimit}. */
  queueLimit?: number;
  /**
   * Starts an engine when a request arrives and none is connected (the headless launcher); it
   * resolves once started, and the engine then joins with {@link EnginePool.add}. Without it such
   * a request is refused with `no_engine` at once.
   */
  startEngine?: () => Promise<void>;
  /** Milliseconds waiting requests give a started engine to connect; default {@link defaultEngineWaitMs}. */
  engineWaitMs?: number;
  /** What a `no_engine` answer tells the person to do, e.g. "open http://...". */
  noEngineHint?: string;
}

/** A slot taken on one engine; release it once when the request is over. */
export interface EngineLease<T> {
  engine: T;
  release(): void;
}

/** What the pool holds now, for `/health`. */
export interface EnginePoolStats {
  /** The engines that take requests (not those set aside). */
  engines: { capacity: number; active: number; served: number }[];
  /** Connected engines set aside because their page answers nothing. */
  aside: number;
  waiting: number;
  queueLimit: number;
}

/** Engines (tabs) that share the load, each with a slot count, and a bounded queue before them. */
export interface EnginePool<T> {
  /** A connected engine that serves `capacity` requests at once. */
  add(engine: T, capacity: number): void;
  /** An engine that went away; its leases become no-ops. */
  remove(engine: T): void;
  /** A connected engine that now serves `capacity` requests at once (its busy slots stay busy). */
  resize(engine: T, capacity: number): void;
  /**
   * Sets a connected engine aside (its page answers nothing: frozen, suspended), or takes it back.
   * An engine set aside gets no new request; its leases stay. While every engine is aside, requests
   * wait (an engine is started if the pool can) until one answers or joins, for the engine wait at
   * most.
   */
  setAside(engine: T, aside: boolean): void;
  /**
   * A slot on the least busy engine, waiting in the queue when all are full. Rejects with
   * `engine_busy` when the queue is full, `no_engine` when there is no engine (and none starts),
   * `aborted` when `signal` aborts while waiting.
   */
  acquire(options?: { signal?: AbortSignal }): Promise<EngineLease<T>>;
  /** The relay is stopping: waiting requests, and any asking from now on, get `reason`. */
  close(reason: LmtabError): void;
  stats(): EnginePoolStats;
}

interface Slots<T> {
  engine: T;
  capacity: number;
  active: number;
  served: number;
  aside: boolean;
}

interface Waiter<T> {
  grant(lease: EngineLease<T>): void;
  fail(error: LmtabError): void;
}

/** Creates the relay's scheduler: least busy engine first, then a bounded FIFO queue. */
export function createEnginePool<T>(options: EnginePoolOptions = {}): EnginePool<T> {
  const queueLimit = options.queueLimit ?? defaultQueueLimit;
  const engineWaitMs = options.engineWaitMs ?? defaultEngineWaitMs;
  const engines = new Map<T, Slots<T>>();
  const waiters: Waiter<T>[] = [];
  let starting = false;
  let engineWait: ReturnType<typeof setTimeout> | undefined;
  let closed: LmtabError | undefined;

  const noEngine = (detail: string) =>
    new LmtabError(
      'no_engine',
      options.noEngineHint === undefined ? detail : `${detail} ${options.noEngineHint}`,
    );

  function leastBusy(): Slots<T> | undefined {
    let best: Slots<T> | undefined;
    for (const slots of engines.values()) {
      if (slots.aside || slots.active >= slots.capacity) continue;
      if (
        best === undefined ||
        slots.active < best.active ||
        (slots.active === best.active && slots.served < best.served)
      ) {
        best = slots;
      }
    }
    return best;
  }

  function lease(slots: Slots<T>): EngineLease<T> {
    slots.active += 1;
    slots.served += 1;
    let released = false;
    return {
      engine: slots.engine,
      release() {
        if (released) return;
        released = true;
        if (engines.get(slots.engine) === slots) slots.active -= 1;
        drain();
      },
    };
  }

  function drain(): void {
    for (;;) {
      const slots = waiters.length > 0 ? leastBusy() : undefined;
      if (slots === undefined) return;
      waiters.shift()!.grant(lease(slots));
    }
  }

  function failAll(error: LmtabError): void {
    clearTimeout(engineWait);
    engineWait = undefined;
    for (const waiter of waiters.splice(0)) waiter.fail(error);
  }

  /** Engines that take requests: connected and not set aside. */
  function usable(): number {
    let count = 0;
    for (const slots of engines.values()) if (!slots.aside) count += 1;
    return count;
  }

  /**
   * With waiters and no engine that takes requests: start one (once at a time) and bound how long
   * they wait for one.
   */
  function awaitEngine(): void {
    if (usable() > 0 || waiters.length === 0) return;
    if (options.startEngine === undefined && engines.size === 0) {
      failAll(noEngine('The engine tab went away and no other is connected to this relay.'));
      return;
    }
    engineWait ??= setTimeout(() => {
      engineWait = undefined;
      if (usable() > 0) return;
      const seconds = Math.round(engineWaitMs / 1000);
      failAll(
        noEngine(
          engines.size > 0
            ? `The engine tabs connected to this relay answer nothing (frozen or suspended tabs), and none answered within ${seconds} s.`
            : `No engine connected within ${seconds} s.`,
        ),
      );
    }, engineWaitMs);
    if (options.startEngine === undefined || starting) return;
    starting = true;
    options.startEngine().then(
      () => void (starting = false),
      (error: unknown) => {
        starting = false;
        if (engines.size === 0) {
          failAll(noEngine(`Starting an engine failed: ${toLmtabError(error).message}`));
        }
      },
    );
  }

  return {
    add(engine, capacity) {
      engines.set(engine, { engine, capacity, active: 0, served: 0, aside: false });
      clearTimeout(engineWait);
      engineWait = undefined;
      drain();
    },
    remove(engine) {
      engines.delete(engine);
      awaitEngine();
    },
    setAside(engine, aside) {
      const slots = engines.get(engine);
      if (slots === undefined || slots.aside === aside) return;
      slots.aside = aside;
      if (aside) {
        awaitEngine();
        return;
      }
      clearTimeout(engineWait);
      engineWait = undefined;
      drain();
    },
    resize(engine, capacity) {
      const slots = engines.get(engine);
      if (slots === undefined) return;
      slots.capacity = capacity;
      drain();
    },
    acquire({ signal } = {}) {
      if (closed !== undefined) return Promise.reject(closed);
      if (signal?.aborted) {
        return Promise.reject(
          new LmtabError('aborted', 'The request was aborted by the client before it was sent.'),
        );
      }
      const free = waiters.length === 0 ? leastBusy() : undefined;
      if (free !== undefined) return Promise.resolve(lease(free));
      if (engines.size === 0 && options.startEngine === undefined) {
        return Promise.reject(noEngine('No engine tab is connected to this relay.'));
      }
      if (waiters.length >= queueLimit) {
        return Promise.reject(
          new LmtabError(
            'engine_busy',
            `The engines are busy: all slots are taken and ${waiters.length} requests wait ` +
              `(the queue holds ${queueLimit}). Retry shortly.`,
          ),
        );
      }
      return new Promise<EngineLease<T>>((resolve, reject) => {
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(new LmtabError('aborted', 'The request was aborted by the client while queued.'));
        };
        const waiter: Waiter<T> = {
          grant(granted) {
            signal?.removeEventListener('abort', onAbort);
            resolve(granted);
          },
          fail(error) {
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
        awaitEngine();
      });
    },
    close(reason) {
      closed = reason;
      failAll(reason);
    },
    stats() {
      return {
        engines: [...engines.values()]
          .filter((slots) => !slots.aside)
          .map(({ capacity, active, served }) => ({ capacity, active, served })),
        aside: engines.size - usable(),
        waiting: waiters.length,
        queueLimit,
      };
    },
  };
}
