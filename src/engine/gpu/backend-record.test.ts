import { describe, expect, it, vi } from 'vitest';
import { BackendRecord } from './backend-record.js';
import { LogRing } from '../log-ring.js';
import { confirmBackend } from './plan-backend.js';

const adapterInfo =
  'ggml_webgpu: adapter_info: vendor_id: 4318 | vendor: nvidia | architecture: ampere | device_id: 8710 | name: GA102 | device_desc: NVIDIA GeForce RTX 3080';

describe('BackendRecord', () => {
  it('keeps the backend lines of a load after the ring has dropped them', () => {
    const ring = new LogRing(3);
    const record = new BackendRecord(ring);
    const log = record.logger();
    log.info(adapterInfo);
    log.info('load_tensors: offloaded 17/17 layers to GPU');
    log.info('sched_reserve: graph_reserve: nodes = 1,024, splits = 2');
    for (let i = 0; i < 10; i++) log.debug(`slot ${i}: token`);
    expect(ring.lines().some((l) => l.includes('offloaded'))).toBe(false);
    expect(record.lines()).toEqual([
      adapterInfo,
      'load_tensors: offloaded 17/17 layers to GPU',
      'sched_reserve: graph_reserve: nodes = 1,024, splits = 2',
    ]);
    expect(record.offloaded()).toEqual({ layers: 17, of: 17 });
  });

  it("keeps the vision projector's backend and graph splits", () => {
    const record = new BackendRecord(new LogRing(10));
    record.push('mtmd_subcontext: using WebGPU backend');
    record.push('clip_model_loader: model name:   mmproj-tiny-lfm2-vl');
    record.push('reserve_compute_meta: graph splits = 1, nodes = 102');
    expect(record.lines()).toEqual([
      'mtmd_subcontext: using WebGPU backend',
      'reserve_compute_meta: graph splits = 1, nodes = 102',
    ]);
  });

  it('tells once that the GPU device is gone, from the watch or from llama.cpp', () => {
    const onGpuLost = vi.fn();
    const record = new BackendRecord(new LogRing(10), { onGpuLost });
    record.push('ggml_webgpu: Failed to get an adapter: requestAdapter returned null');
    record.push('ggml_webgpu: Device error! Reason: 3, Message: out of memory');
    expect(onGpuLost).not.toHaveBeenCalled();
    record.push('lmtab-gpu: device lost (unknown): the GPU process crashed');
    record.push('ggml_webgpu: Device lost! Reason: 1, Message: the GPU process crashed');
    expect(onGpuLost).toHaveBeenCalledTimes(1);
    expect(record.gpuLoss()).toBe('lmtab-gpu: device lost (unknown): the GPU process crashed');

    const waits = new BackendRecord(new LogRing(10));
    waits.push('ggml-webgpu.cpp:505: ggml_webgpu: mapAsync failed with status 2: Device lost');
    expect(waits.gpuLoss()).toContain('failed with status');
  });
});

describe('confirmBackend with the record', () => {
  const planned = {
    engine: 'wllama',
    backend: 'webgpu' as const,
    adapter: 'nvidia ampere',
    gpuLayers: 999,
    threads: 4,
    crossOriginIsolated: true,
  };

  it('names the adapter llama.cpp took and its graph splits', () => {
    const log = [
      adapterInfo,
      'load_tensors: offloaded 17/17 layers to GPU',
      'graph_reserve: nodes = 700, splits = 3',
      'graph_reserve: nodes = 690, splits = 2',
    ];
    expect(confirmBackend(planned, log)).toEqual({
      ...planned,
      gpuLayers: 17,
      adapter: 'nvidia ampere NVIDIA GeForce RTX 3080',
      graphSplits: 2,
      backendLines: log,
    });
  });
});
