import { Wllama, type WllamaConfig } from '@wllama/wllama/esm/index.js';
import type { EngineInfo } from '../engine.js';
import { kernelLogLines } from './kernel-log-lines.js';
import type { Memory64Resources } from './memory64-build.js';
import { failOnWorkerError, onEachProxy } from '../wllama-internals.js';

/**
 * lmtab's CPU WebAssembly build (`wasm/prebuilt/`, made by `npm run build:wasm`): llama.cpp with
 * ggml's wasm SIMD kernels and wllama's C++ glue, compiled for wasm32 with threads. wllama 3.13.0's
 * own wasm is built with `GGML_CPU_GENERIC` (no SIMD kernels); this one runs its CPU path about
 * three times faster (bench/NOTES.md).
 */
export interface CpuBuild {
  /** URL of the build's emscripten JavaScript glue (`lmtab-cpu.js`). */
  glueUrl: string;
  /** URL of its `lmtab-cpu.wasm`. */
  wasmUrl: string;
  /**
   * The marker its server code puts where an image goes (`wasm/glue-patches.mjs`): the build's glue
   * reports none after a load, so wllama is told this one.
   */
  mediaMarker: string;
  /**
   * URL of its kernels built for wasm64 (`lmtab-kernels64.wasm`), which go into wllama's memory64
   * build for the models this wasm32 build cannot hold (`memory64-kernels.ts`).
   */
  memory64KernelsUrl?: string;
}

/** Name of each build in {@link EngineInfo.build}. */
export const buildNames = {
  stock: 'wllama 3.13.0',
  cpu: 'lmtab-cpu',
  memory64: 'wllama 3.13.0 memory64',
} as const;

type WorkerResources = ReturnType<Wllama['getWorkerResources']>;

/**
 * Makes a wllama instance for a planned load: a CPU-only plan runs on lmtab's CPU build when one is
 * given, a WebGPU plan on wllama's stock build (the one with llama.cpp's WebGPU backend).
 *
 * wllama loads another emscripten glue and wasm only in its "compat" mode (wasm32, asynchronous
 * file reads through Asyncify), which it enables by itself only where JSPI or memory64 is missing.
 * lmtab's build is exactly such a wasm32 build, so its resources are handed to wllama's worker the
 * way compat mode hands them: this instance's `getWorkerResources` answers them for every browser.
 * A CPU plan given `memory64` resources (past 4 GiB) runs on wllama's stock build with its memory
 * raised (`memory64-build.ts`).
 */
export function createWllamaFor(
  info: EngineInfo,
  stockWasmUrl: string,
  cpuBuild: CpuBuild | undefined,
  config: WllamaConfig,
  memory64?: Memory64Resources,
): { wllama: Wllama; info: EngineInfo } {
  if (memory64 && info.backend === 'wasm') {
    const wllama = newWllama(stockWasmUrl, config);
    wllama.getWorkerResources = () => ({ ...memory64 });
    return { wllama, info: { ...info, build: buildNames.memory64 } };
  }
  const resources = cpuWorkerResources(info, cpuBuild);
  // The CPU build compiles its own llama.cpp (wasm/source.env), not the commit wllama's JavaScript
  // names, and speaks its wire format (wasm/cpp-patches.mjs): the version check would refuse it.
  const wllama = newWllama(
    stockWasmUrl,
    resources ? { ...config, skipVersionCheck: true } : config,
  );
  if (!resources) return { wllama, info: { ...info, build: buildNames.stock } };
  wllama.getWorkerResources = () => ({ ...resources });
  sendBlobSlices(wllama);
  const load = wllama.loadModel.bind(wllama);
  wllama.loadModel = async (...args) => {
    await load(...args);
    // wllama replaces each image part with its marker; without one it refuses every image.
    const loaded = wllama as unknown as { mediaMarker?: string };
    if (!loaded.mediaMarker) loaded.mediaMarker = cpuBuild!.mediaMarker;
  };
  return { wllama, info: { ...info, build: buildNames.cpu } };
}

/** A wllama instance whose pending calls fail when its worker dies (`failOnWorkerError`). */
function newWllama(stockWasmUrl: string, config: WllamaConfig): Wllama {
  const wllama = new Wllama({ default: stockWasmUrl }, config);
  failOnWorkerError(wllama);
  return wllama;
}

/** The part of wllama's worker host that answers the worker's file reads. */
interface FileReadHost {
  fileBlobs: Map<string, Blob>;
  worker?: Worker;
  fileReadResponse(name: string, offset: number, size: number): Promise<void>;
}

/**
 * Makes each worker host this instance creates answer a read of the model with the file's Blob
 * slice instead of a new ArrayBuffer holding a copy: lmtab's CPU build reads the slice into one
 * reused buffer (its glue's `js_file_read`, wasm/cpp-patches.mjs), so loading a model leaves no
 * garbage the size of the model behind. wllama's host reads each slice into a new buffer (a tensor
 * each, up to 142 MB) that is garbage once the worker has copied it; a 2.6 GB load peaked at
 * 1.5 times the file until V8 collected them.
 */
function sendBlobSlices(wllama: Wllama): void {
  onEachProxy<FileReadHost>(wllama, (host) => {
    if (typeof host.fileReadResponse !== 'function') return;
    const copy = host.fileReadResponse.bind(host);
    host.fileReadResponse = async (name, offset, size) => {
      const blob = host.fileBlobs.get(name);
      if (blob === undefined || host.worker === undefined) return copy(name, offset, size);
      host.worker.postMessage({
        verb: 'fs.read_res',
        args: [blob.slice(offset, offset + size)],
      });
    };
  });
}

/**
 * What wllama's worker loads for a planned load: lmtab's CPU build as compat-mode resources for a
 * CPU-only plan when a build is given, otherwise nothing (wllama's own choice, the stock build).
 */
export function cpuWorkerResources(
  info: EngineInfo,
  cpuBuild: CpuBuild | undefined,
): WorkerResources | undefined {
  if (info.backend !== 'wasm' || !cpuBuild) return undefined;
  return {
    wasmPath: absoluteUrl(cpuBuild.wasmUrl),
    jsPath: absoluteUrl(cpuBuild.glueUrl),
    compat: true,
    noWebGPU: true,
  };
}

/** Resolves a URL against the page or worker location (wllama's worker runs from a Blob URL). */
function absoluteUrl(url: string): string {
  return new URL(url, globalThis.location?.href).href;
}

/** Which K-quant kernels a load's log says run (see {@link EngineInfo.kernels}). */
export function kernelsFromLog(log: readonly string[]): EngineInfo['kernels'] {
  if (log.some((line) => line.includes(kernelLogLines.relaxed))) return 'relaxed-simd';
  if (log.some((line) => line.includes(kernelLogLines.ggml))) return 'simd128';
  return undefined;
}
