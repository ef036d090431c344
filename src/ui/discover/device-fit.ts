import { memory64Supported, memoryNeed, modelFit } from '../../engine/index.js';
import type { EngineInfo, ModelFit } from '../../engine/index.js';
import type { GgufChoice } from '../../hub/index.js';
import { formatBytes } from '../../store/index.js';

/** How a download fits this device: its storage, and its memory on each compute path. */
export interface DeviceFit extends ModelFit {
  storage: 'yes' | 'no' | 'unknown';
  /** The verdict for colour: `tight` where it runs only on a GPU or may not fit the memory. */
  level: 'yes' | 'tight' | 'no';
  /** One headline for people, naming the numbers where storage is short. */
  text: string;
  /** The memory part of the headline, where the model does not plainly fit the CPU engine. */
  memoryText?: string;
  /** Why the download is of no use here (neither the CPU nor the GPU path can hold it). */
  blocked?: string;
}

/** What the browser says about this device. */
export interface DeviceFacts {
  /** `navigator.deviceMemory` in GB (Chromium rounds it and caps it at 8); absent elsewhere. */
  memoryGb?: number;
  /** Bytes free in the origin's storage quota, when `navigator.storage.estimate()` answers. */
  freeStorage?: number;
  /** Whether the engine has a WebGPU adapter llama.cpp can use ({@link engineGpu}); undefined until known. */
  gpu?: boolean;
  /** Whether the browser runs the memory64 CPU build (past 4 GiB); undefined counts as yes. */
  memory64?: boolean;
}

/**
 * Whether the engine's context offers a WebGPU adapter llama.cpp can use (one with `shader-f16`):
 * false where the engine found none, undefined where its answer does not say (or there is none yet).
 */
export function engineGpu(info: EngineInfo | undefined): boolean | undefined {
  if (info === undefined) return undefined;
  if (info.gpu !== undefined) return info.gpu.features.includes('shader-f16');
  // Without an adapter the engine says why it runs without WebGPU.
  return info.fallbackReason === undefined ? undefined : false;
}

/**
 * How a model's files (model parts, then the projector) fit this device: the origin's free storage,
 * and memory on the CPU path (lmtab's WebAssembly engine) and the GPU path (see `modelFit`).
 */
export function deviceFit(fileBytes: readonly number[], facts: DeviceFacts): DeviceFit {
  const bytes = fileBytes.reduce((sum, size) => sum + size, 0);
  const fit = modelFit(memoryNeed({ fileBytes: [...fileBytes] }), {
    // The browser gives whole (decimal) gigabytes; sizes here are decimal too.
    ...(facts.memoryGb === undefined ? {} : { memoryBytes: facts.memoryGb * 1e9 }),
    ...(facts.gpu === undefined ? {} : { gpu: facts.gpu }),
    ...(facts.memory64 === undefined ? {} : { memory64: facts.memory64 }),
  });
  const storage: DeviceFit['storage'] =
    facts.freeStorage === undefined ? 'unknown' : bytes <= facts.freeStorage ? 'yes' : 'no';
  const blocked =
    fit.cpu.fits === 'no' && fit.gpu.fits === 'no'
      ? 'Cannot run on this device: neither the CPU engine nor a GPU can hold it.'
      : undefined;
  const memoryText =
    blocked ??
    (fit.cpu.fits === 'no'
      ? 'Runs only on a GPU with enough memory: too large for this browser’s CPU engine.'
      : fit.cpu.fits === 'unknown'
        ? 'May not fit this device’s memory.'
        : fit.cpu.build === 'memory64'
          ? 'Past 4 GiB: runs on the CPU with wllama’s memory64 build, whose kernels are slower.'
          : undefined);
  const parts: string[] = [];
  if (memoryText !== undefined) parts.push(memoryText);
  if (storage === 'no') {
    parts.push(
      `Needs ${formatBytes(bytes)} of storage; ${formatBytes(facts.freeStorage ?? 0)} free.`,
    );
  }
  if (parts.length === 0) {
    parts.push(storage === 'yes' ? 'Fits this device.' : 'Fits this device’s memory.');
  }
  const level: DeviceFit['level'] =
    blocked !== undefined || storage === 'no' ? 'no' : memoryText !== undefined ? 'tight' : 'yes';
  return {
    ...fit,
    storage,
    level,
    text: parts.join(' '),
    ...(memoryText === undefined ? {} : { memoryText }),
    ...(blocked === undefined ? {} : { blocked }),
  };
}

/** The sizes of a choice's files as {@link deviceFit} takes them: model parts, then the projector. */
export function choiceFiles(choice: GgufChoice): number[] {
  return [
    ...choice.files.map((file) => file.size),
    ...(choice.projector ? [choice.projector.size] : []),
  ];
}

/** This device's facts as the browser tells them (not `gpu`: the engine tells that). */
export async function readDeviceFacts(): Promise<DeviceFacts> {
  const nav = globalThis.navigator as (Navigator & { deviceMemory?: number }) | undefined;
  const facts: DeviceFacts = {};
  if (typeof nav?.deviceMemory === 'number') facts.memoryGb = nav.deviceMemory;
  facts.memory64 = memory64Supported();
  const estimate = await nav?.storage?.estimate?.().catch(() => undefined);
  if (estimate?.quota !== undefined && estimate.usage !== undefined) {
    facts.freeStorage = Math.max(0, estimate.quota - estimate.usage);
  }
  return facts;
}
