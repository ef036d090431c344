import { formatBytes } from '../store/index.js';

/** How a download fits this device. */
export interface DeviceFit {
  /** `yes`, `tight` (may run slowly or fail), `no`, or `unknown` when the browser does not say. */
  memory: 'yes' | 'tight' | 'no' | 'unknown';
  storage: 'yes' | 'no' | 'unknown';
  /** One sentence for people, naming the numbers. */
  text: string;
}

/** What the browser says about this device. */
export interface DeviceFacts {
  /** `navigator.deviceMemory` in GB (Chromium rounds it and caps it at 8); absent elsewhere. */
  memoryGb?: number;
  /** Bytes free in the origin's storage quota, when `navigator.storage.estimate()` answers. */
  freeStorage?: number;
}

// Weights, plus the context cache and compute buffers of a default context: measured on LFM2
// models at about a fifth more than the file.
const workingSetFactor = 1.2;
// A tab shares memory with the browser and the system: half of it is a comfortable budget.
const comfortableShare = 0.5;

/** Whether `bytes` of model (projector included) fits this device's memory and storage. */
export function deviceFit(bytes: number, facts: DeviceFacts): DeviceFit {
  const need = bytes * workingSetFactor;
  const memoryBytes = facts.memoryGb === undefined ? undefined : facts.memoryGb * 1e9;
  const memory: DeviceFit['memory'] =
    memoryBytes === undefined
      ? 'unknown'
      : need <= memoryBytes * comfortableShare
        ? 'yes'
        : need <= memoryBytes
          ? 'tight'
          : 'no';
  const storage: DeviceFit['storage'] =
    facts.freeStorage === undefined ? 'unknown' : bytes <= facts.freeStorage ? 'yes' : 'no';
  const parts: string[] = [];
  if (storage === 'no') {
    parts.push(
      `Needs ${formatBytes(bytes)} of storage; ${formatBytes(facts.freeStorage ?? 0)} free.`,
    );
  }
  if (memory === 'no' || memory === 'tight') {
    const device = `this device reports ${facts.memoryGb} GB`;
    parts.push(
      memory === 'no'
        ? `Needs about ${formatBytes(need)} of memory; ${device}.`
        : `Needs about ${formatBytes(need)} of memory, a lot: ${device}, so it may run slowly.`,
    );
  }
  if (parts.length === 0) {
    parts.push(
      memory === 'yes' && storage === 'yes'
        ? 'Fits this device.'
        : memory === 'yes'
          ? 'Fits this device’s memory.'
          : storage === 'yes'
            ? 'Fits this browser’s storage.'
            : `Needs about ${formatBytes(need)} of memory.`,
    );
  }
  return { memory, storage, text: parts.join(' ') };
}

/** This device's facts as the browser tells them. */
export async function readDeviceFacts(): Promise<DeviceFacts> {
  const nav = globalThis.navigator as (Navigator & { deviceMemory?: number }) | undefined;
  const facts: DeviceFacts = {};
  if (typeof nav?.deviceMemory === 'number') facts.memoryGb = nav.deviceMemory;
  const estimate = await nav?.storage?.estimate?.().catch(() => undefined);
  if (estimate?.quota !== undefined && estimate.usage !== undefined) {
    facts.freeStorage = Math.max(0, estimate.quota - estimate.usage);
  }
  return facts;
}
