import type { Capabilities, EngineInfo } from '../../src/engine/index.js';
import type { ChatTurnsResult, ChatWorkload } from '../chat-turns.js';
import type { GenerateSpec } from '../generate-spec.js';
import type { StreamTiming } from '../stream-timing.js';
import type { WllamaBenchConfig } from './worker-protocol.js';

/** What the bench page reports of its browser. */
export interface PageInfo {
  userAgent: string;
  crossOriginIsolated: boolean;
  /** `navigator.hardwareConcurrency`. */
  cores: number;
  capabilities: Capabilities;
  /** The compute path lmtab would choose with default settings. */
  plan: EngineInfo;
  /** What node-llama-wasm detects: pthreads (SharedArrayBuffer) and WebGPU (with JSPI). */
  llamaWasm: { threads: boolean; webgpu: boolean };
}

/** A model load, timed in the page. */
export interface LoadTiming {
  /** From the call to a loaded model, reading from IndexedDB included. */
  loadMs: number;
  /** The compute path the engine reports after loading. */
  info?: EngineInfo;
  /** Engine-specific description (node-llama-wasm's system info). */
  detail?: string;
}

/** Several requests sent at once. */
export interface ConcurrentTiming {
  /** From the first request sent to the last answer complete. */
  wallMs: number;
  timings: StreamTiming[];
}

/** Whether an engine meets one of lmtab's needs, and what showed it. */
export interface CapabilityCheck {
  need: 'streaming' | 'abort' | 'parallel requests' | 'chat templates' | 'images';
  supported: boolean;
  evidence: string;
}

/** Settings of a node-llama-wasm load. */
export interface LlamaWasmConfig {
  threads: number;
  contextLength: number;
}

/** The functions the bench runner calls in the page (`window.lmtabBench`). */
export interface BenchPageApi {
  info(): Promise<PageInfo>;
  /** Whether the store holds `id` complete, `sizeBytes` long, stored at or after `notBefore`. */
  hasModel(id: string, sizeBytes: number, notBefore: number): Promise<boolean>;
  /** Imports the file chosen in `<input id=model-file>` (and `projector-file`, if any) as `id`. */
  importChosen(id: string, withProjector: boolean): Promise<void>;
  /** Restarts lmtab's wllama engine with these settings; answers the planned compute path. */
  configure(config: WllamaBenchConfig): Promise<EngineInfo>;
  /** Unloads, then loads `model` in lmtab's engine. */
  load(model: string): Promise<LoadTiming>;
  unload(): Promise<void>;
  /** One generation through `Engine.generate` in the engine worker (the direct engine call). */
  direct(spec: GenerateSpec): Promise<StreamTiming>;
  /** The turn benchmark through the direct engine call. */
  directChat(model: string, workload: ChatWorkload): Promise<ChatTurnsResult>;
  /** One generation through `fetch` in the page: the service worker path. */
  fetch(spec: GenerateSpec): Promise<StreamTiming>;
  /** Several generations through `fetch` at once. */
  fetchConcurrent(specs: GenerateSpec[]): Promise<ConcurrentTiming>;
  /** Connects this tab to the relay as its engine, when the relay build has that transport. */
  connectRelay(): Promise<boolean>;
  llamaWasmLoad(model: string, config: LlamaWasmConfig): Promise<LoadTiming>;
  llamaWasmGenerate(spec: GenerateSpec): Promise<StreamTiming>;
  llamaWasmChat(workload: ChatWorkload): Promise<ChatTurnsResult>;
  llamaWasmRelease(): Promise<void>;
  /** Checks streaming, abort, parallel requests and chat templates on the loaded model. */
  llamaWasmProbe(): Promise<CapabilityCheck[]>;
  /** Checks images with a vision model and its projector from the store (loads and releases it). */
  llamaWasmProbeImages(model: string): Promise<CapabilityCheck>;
}

declare global {
  interface Window {
    lmtabBench: BenchPageApi;
  }
}
