import { LmtabError } from '../errors/index.js';
import { parseModelReference } from '../hub/index.js';
import { parseDuration } from './duration.js';

/** What an app file passes to {@link defineApp}; every option but `model` has a default. */
export interface AppOptions {
  /** The hub model to serve: `hf.co/ORG/REPO:QUANT` (no level: Q4_K_M, else the nearest) or `ORG/REPO`. */
  model: string;
  /** Context window of the loaded model, in tokens, shared by the parallel slots; default 4096. */
  contextLength?: number;
  /** Requests one replica's engine decodes together (llama.cpp slots); default 4. */
  parallel?: number;
  /** Replicas kept running without traffic; default 0 (scale to zero). */
  minReplicas?: number;
  /** Most replicas the autoscaler may start; default 1. */
  maxReplicas?: number;
  /** Requests in flight per replica the autoscaler aims for (Knative's `target`); default `parallel`. */
  targetConcurrency?: number;
  /**
   * Hard limit of requests in flight per replica (Knative's `containerConcurrency`); more wait in
   * Knative's queue. 0 means no limit; default 2 × `parallel`.
   */
  maxConcurrency?: number;
  /**
   * How long a replica (and its loaded model) stays after load drops, before scaling down: a
   * duration like `'5m'` or seconds, at most 1h (Knative's `scale-down-delay` limit); default `'5m'`.
   */
  keepAlive?: string | number;
  /** Longest one request may take, streaming included: `'600s'`, `'10m'` or seconds; default `'600s'`. */
  requestTimeout?: string | number;
  /**
   * Longest a new replica may take to become ready (start Chromium, download and load the model)
   * before Knative gives up on it: `'20m'` or seconds; default `'20m'`.
   */
  startupTimeout?: string | number;
  /** Give each replica one NVIDIA GPU (WebGPU through Vulkan in Chromium); default false (WebAssembly on the CPU). */
  gpu?: boolean;
  /** Memory per replica as a Kubernetes quantity (`'8Gi'`); default none (the cluster's default). */
  memory?: string;
  /** CPU per replica as a Kubernetes quantity (`'2'`, `'500m'`); default none (the cluster's default). */
  cpu?: string;
  /** Disk per replica for the browser profile, where downloaded weights live (`'20Gi'`); default `'20Gi'`. */
  storage?: string;
}

/** A validated app: every option resolved, durations in seconds. */
export interface AppDefinition {
  /** Marks the object as an app definition (checked when an app file is loaded). */
  readonly kind: 'lmtab-app';
  readonly model: string;
  readonly contextLength: number;
  readonly parallel: number;
  readonly minReplicas: number;
  readonly maxReplicas: number;
  readonly targetConcurrency: number;
  readonly maxConcurrency: number;
  /** Seconds. */
  readonly keepAliveSeconds: number;
  /** Seconds. */
  readonly requestTimeoutSeconds: number;
  /** Seconds. */
  readonly startupTimeoutSeconds: number;
  readonly gpu: boolean;
  readonly memory: string | undefined;
  readonly cpu: string | undefined;
  readonly storage: string;
}

/** Knative refuses a `scale-down-delay` above one hour. */
export const MAX_KEEP_ALIVE_SECONDS = 3600;

const optionNames: readonly (keyof AppOptions)[] = [
  'model',
  'contextLength',
  'parallel',
  'minReplicas',
  'maxReplicas',
  'targetConcurrency',
  'maxConcurrency',
  'keepAlive',
  'requestTimeout',
  'startupTimeout',
  'gpu',
  'memory',
  'cpu',
  'storage',
];
const quantityPattern = /^\d+(?:\.\d+)?(?:Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$/;

function invalid(field: string, expected: string, got: unknown): LmtabError {
  const shown = typeof got === 'string' ? JSON.stringify(got) : String(got);
  return new LmtabError(
    'invalid_request',
    `defineApp: ${field}: expected ${expected}, got ${shown}.`,
    {
      param: field,
    },
  );
}

function integer(
  options: AppOptions,
  field: keyof AppOptions,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = options[field] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `a whole number from ${min} to ${max}`, value);
  }
  return value;
}

function quantity(options: AppOptions, field: 'memory' | 'cpu' | 'storage'): string | undefined {
  const value = options[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !quantityPattern.test(value)) {
    throw invalid(
      field,
      `a Kubernetes quantity like ${field === 'cpu' ? '"2" or "500m"' : '"8Gi"'}`,
      value,
    );
  }
  return value;
}

function duration(
  options: AppOptions,
  field: 'keepAlive' | 'requestTimeout' | 'startupTimeout',
  fallback: string,
): number {
  const value = options[field] ?? fallback;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw invalid(field, 'a duration like "5m" or a number of seconds', value);
  }
  try {
    return parseDuration(value, field);
  } catch (error) {
    throw new LmtabError('invalid_request', `defineApp: ${(error as Error).message}`, {
      param: field,
      cause: error,
    });
  }
}

/**
 * Validates an app's options and resolves their defaults; app files export the result
 * (`export const serve = defineApp({ model: 'hf.co/ORG/REPO:Q4_K_M' })`). Throws
 * `invalid_request` naming the option, what it expected and what it got.
 */
export function defineApp(options: AppOptions): AppDefinition {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalid('options', 'an object like { model: "hf.co/ORG/REPO:Q4_K_M" }', options);
  }
  for (const key of Object.keys(options)) {
    if (!optionNames.includes(key as keyof AppOptions)) {
      throw invalid(
        key,
        `no such option (options: ${optionNames.join(', ')})`,
        (options as unknown as Record<string, unknown>)[key],
      );
    }
  }
  if (typeof options.model !== 'string') {
    throw invalid('model', 'a hub model reference like "hf.co/ORG/REPO:Q4_K_M"', options.model);
  }
  try {
    parseModelReference(options.model);
  } catch (error) {
    throw new LmtabError('invalid_request', `defineApp: model: ${(error as Error).message}`, {
      param: 'model',
      cause: error,
    });
  }
  const contextLength = integer(options, 'contextLength', 4096, 256, 1 << 20);
  const parallel = integer(options, 'parallel', 4, 1, 64);
  const minReplicas = integer(options, 'minReplicas', 0, 0, 1000);
  const maxReplicas = integer(options, 'maxReplicas', Math.max(1, minReplicas), 1, 1000);
  if (maxReplicas < minReplicas) {
    throw invalid('maxReplicas', `at least minReplicas (${minReplicas})`, maxReplicas);
  }
  const maxConcurrency = integer(options, 'maxConcurrency', 2 * parallel, 0, 1000);
  const targetConcurrency = integer(
    options,
    'targetConcurrency',
    maxConcurrency === 0 ? parallel : Math.min(parallel, maxConcurrency),
    1,
    1000,
  );
  if (maxConcurrency > 0 && targetConcurrency > maxConcurrency) {
    throw invalid(
      'targetConcurrency',
      `at most maxConcurrency (${maxConcurrency})`,
      targetConcurrency,
    );
  }
  const keepAliveSeconds = duration(options, 'keepAlive', '5m');
  if (keepAliveSeconds > MAX_KEEP_ALIVE_SECONDS) {
    throw invalid(
      'keepAlive',
      'at most "1h" (Knative\'s longest scale-down delay)',
      options.keepAlive,
    );
  }
  const requestTimeoutSeconds = duration(options, 'requestTimeout', '600s');
  if (requestTimeoutSeconds < 1) {
    throw invalid('requestTimeout', 'at least "1s"', options.requestTimeout);
  }
  const startupTimeoutSeconds = duration(options, 'startupTimeout', '20m');
  if (startupTimeoutSeconds < 1) {
    throw invalid('startupTimeout', 'at least "1s"', options.startupTimeout);
  }
  const gpu = options.gpu ?? false;
  if (typeof gpu !== 'boolean') throw invalid('gpu', 'true or false', gpu);
  return Object.freeze({
    kind: 'lmtab-app',
    model: options.model.trim(),
    contextLength,
    parallel,
    minReplicas,
    maxReplicas,
    targetConcurrency,
    maxConcurrency,
    keepAliveSeconds,
    requestTimeoutSeconds,
    startupTimeoutSeconds,
    gpu,
    memory: quantity(options, 'memory'),
    cpu: quantity(options, 'cpu'),
    storage: quantity(options, 'storage') ?? '20Gi',
  });
}

/** Whether a value (an app file's export) is an app definition made by {@link defineApp}. */
export function isAppDefinition(value: unknown): value is AppDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'lmtab-app'
  );
}
