import { LmtabError } from '../errors/index.js';
import type { ModelRecord, ModelStore } from '../store/index.js';
import type { LoadedModel } from './engine.js';

/** What a residency tracks of the loaded model; engines add their runtime to it. */
export interface ResidencyState {
  /** Requests using the model now. */
  active: number;
  /** When the idle model unloads (epoch ms). */
  expiresAt: number;
  /** Set when the model's runtime failed: it unloads once idle, and the next request loads it afresh. */
  broken?: boolean;
}

/** A loaded model as an engine describes it. */
export interface ResidentModel {
  model: string;
  contextLength: number;
}

/** A resident model as `Engine.loaded()` and `Engine.load()` report it, with its engine's slots. */
export function describeResident(
  current: Omit<LoadedModel, 'parallel'>,
  parallel: number,
): LoadedModel {
  return {
    model: current.model,
    sizeBytes: current.sizeBytes,
    contextLength: current.contextLength,
    parallel,
    active: current.active,
    info: current.info,
    expiresAt: current.expiresAt,
  };
}

/** Options of {@link createResidency}. */
export interface ResidencyOptions<R extends ResidentModel> {
  store: Pick<ModelStore, 'get'>;
  /** Loads a stored model with a context length (undefined: the engine's own default). */
  load(record: ModelRecord, contextLength: number | undefined): Promise<R>;
  /** Frees a loaded model. */
  unload(resident: R & ResidencyState): Promise<void>;
  /** Context length of a request that names none, when a model must be loaded for it. */
  defaultContextLength?: number;
  /** Milliseconds an idle model stays loaded. */
  keepAliveMs: number;
  /** Clock in epoch milliseconds. */
  clock: () => number;
}

/** A model taken for a request: release it when the request ends. */
export interface Acquired<R> {
  current: R;
  record: ModelRecord;
  /** Milliseconds spent loading for this request (0 when the model was resident). */
  loadMs: number;
}

/** One resident model at a time, shared by the requests for it (see {@link createResidency}). */
export interface Residency<R extends ResidentModel> {
  /** Makes `model` resident (swapping out another once it is idle) and counts a request on it. */
  acquire(
    model: string,
    contextLength: number | undefined,
    signal?: AbortSignal,
  ): Promise<Acquired<R & ResidencyState>>;
  /** Makes `model` resident as {@link acquire} does, without keeping a request on it. */
  load(
    model: string,
    contextLength: number | undefined,
    signal?: AbortSignal,
  ): Promise<R & ResidencyState>;
  /** Ends a request taken by {@link acquire}; the last one starts the keep-alive timer. */
  release(current: R & ResidencyState): void;
  /** Unloads `model` (any model without one) once its requests end. */
  unload(model?: string): Promise<void>;
  /** The resident model, if any. */
  resident(): (R & ResidencyState) | undefined;
}

/**
 * Keeps one model loaded for an engine: requests for it share it, a request for another model
 * waits until the resident one is idle and swaps it, loads and unloads run one at a time in
 * arrival order, and an idle model unloads after the keep-alive. A request that names no context
 * length takes the resident model as it is; one that asks for more than it has reloads it.
 */
export function createResidency<R extends ResidentModel>(
  options: ResidencyOptions<R>,
): Residency<R> {
  type Resident = R & ResidencyState;
  let resident: Resident | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idleWaiters: Array<() => void> = [];
  let queue: Promise<unknown> = Promise.resolve();

  /** Runs loads and unloads one at a time, in arrival order. */
  function serialized<T>(task: () => Promise<T>): Promise<T> {
    const result = queue.then(task, task);
    queue = result.catch(() => undefined);
    return result;
  }

  async function unloadResident(): Promise<void> {
    const current = resident;
    if (!current) return;
    if (current.active > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    if (resident !== current) return;
    clearTimeout(timer);
    resident = undefined;
    await options.unload(current);
  }

  function acquire(model: string, contextLength: number | undefined, signal?: AbortSignal) {
    return serialized(async () => {
      signal?.throwIfAborted();
      const record = await options.store.get(model);
      if (!record) {
        throw new LmtabError('model_not_found', `Model "${model}" is not in the store.`, {
          param: 'model',
        });
      }
      let loadMs = 0;
      const fits =
        resident?.model === model &&
        !resident.broken &&
        (contextLength === undefined || resident.contextLength >= contextLength);
      if (!fits) {
        await unloadResident();
        const started = options.clock();
        const loaded = await options.load(record, contextLength ?? options.defaultContextLength);
        resident = { ...loaded, active: 0, expiresAt: options.clock() + options.keepAliveMs };
        loadMs = options.clock() - started;
      }
      const current = resident!;
      clearTimeout(timer);
      current.active += 1;
      return { current, record, loadMs };
    });
  }

  function release(current: Resident): void {
    current.active -= 1;
    if (current.active > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
    if (resident !== current) return;
    clearTimeout(timer);
    if (current.broken) {
      void serialized(async () => {
        if (resident === current && current.active === 0) await unloadResident();
      });
      return;
    }
    current.expiresAt = options.clock() + options.keepAliveMs;
    timer = setTimeout(() => {
      if (resident === current && current.active === 0) void serialized(unloadResident);
    }, options.keepAliveMs);
  }

  return {
    acquire,
    async load(model: string, contextLength: number | undefined, signal?: AbortSignal) {
      const { current } = await acquire(model, contextLength, signal);
      release(current);
      return current;
    },
    release,
    unload: (model?: string) =>
      serialized(async () => {
        if (!model || resident?.model === model) await unloadResident();
      }),
    resident: () => resident,
  };
}
