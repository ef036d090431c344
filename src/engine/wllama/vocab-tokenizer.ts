import type { Wllama } from '@wllama/wllama/esm/index.js';
import { BackendRecord } from '../gpu/backend-record.js';
import { createWllamaFor, type CpuBuild } from '../builds/cpu-build.js';
import type { EngineInfo } from '../engine.js';
import { loadWllama } from './load-wllama.js';
import { LogRing } from '../log-ring.js';
import { onEachProxy, type WllamaProxy } from '../wllama-internals.js';

/**
 * Loads a model's vocabulary and chat template, and nothing else, into lmtab's CPU build, for the
 * token routes of a model that runs on wllama's stock build (WebGPU, or memory64 past 4 GiB), which
 * has no token actions. The CPU build's `load_vocab` action (wasm/glue/token-actions.h) is its
 * `load` with llama.cpp's vocab_only: the same load request, read the same way, but no weights and
 * no context, so the instance holds megabytes, not the model. wllama's `loadModel` sends `load`;
 * this instance's proxy sends `load_vocab` in its place.
 *
 * The vocabulary is the file's; the chat template runs in the CPU build's llama.cpp (wasm/README.md
 * names its commit), which may format a few edge cases differently from the stock build's newer one.
 */
export async function loadVocabTokenizer(
  files: Blob[],
  options: { wasmUrl: string; build: CpuBuild; label: string },
): Promise<Wllama> {
  const log = new LogRing(50);
  const info: EngineInfo = {
    engine: 'wllama',
    backend: 'wasm',
    threads: 1,
    gpuLayers: 0,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
  };
  const backend = new BackendRecord(log);
  const { wllama } = createWllamaFor(info, options.wasmUrl, options.build, {
    logger: backend.logger(),
    allowOffline: true,
  });
  sendLoadVocab(wllama);
  await loadWllama(
    wllama,
    files,
    { n_ctx: 0, n_threads: 1, n_gpu_layers: 0, n_parallel: 1 },
    { log, label: `the vocabulary of ${options.label}`, info },
  );
  return wllama;
}

/** Makes the proxy wllama creates at its load send `load_vocab` where it would send `load`. */
function sendLoadVocab(wllama: Wllama): void {
  onEachProxy<WllamaProxy>(wllama, (proxy) => {
    const action = proxy.wllamaAction.bind(proxy);
    proxy.wllamaAction = (name, body) => action(name === 'load' ? 'load_vocab' : name, body);
  });
}
