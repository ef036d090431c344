import { describe, expect, test } from 'vitest';
import { notOnGpu, readOffload } from '../support/webgpu/offload-report.js';

// Lines of llama.cpp b12211 (wllama 3.13.0's stock build) loading the tiny LFM2-VL fixture on Dawn
// with lavapipe, and the same file with WebGPU switched off (n_gpu_layers 0).
const onGpu = [
  'ggml_webgpu: adapter_info: vendor_id: 0 | vendor: mesa | architecture: software | device_id: 0 | name: llvmpipe-llvm-15-0-6-256-bits- | device_desc: llvmpipe: Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) 0.0.1',
  'llama_prepare_model_devices: using device WebGPU (WebGPU) (unknown id) - 4095 MiB free',
  'load_tensors: offloading output layer to GPU',
  'load_tensors: offloading 3 repeating layers to GPU',
  'load_tensors: offloaded 5/5 layers to GPU',
  'sched_reserve: graph: nodes = 147, splits = 2, input objects = 4, input tensors = 10',
  'mtmd_subcontext: using WebGPU: WebGPU backend',
  'reserve_compute_meta: graph splits = 1, nodes = 98',
];
const onCpu = [
  'ggml_webgpu: Failed to get an adapter: WebGPU not available on this browser (requestAdapter returned null)',
  'load_tensors: loading model tensors, this can take a while... (load_mode = none)',
  'load_tensors:          CPU model buffer size =     0.36 MiB',
  'sched_reserve: graph: nodes = 147, splits = 1, input objects = 4, input tensors = 10',
];

describe('readOffload', () => {
  test('reads the adapter, the layers, the splits and the projector from a WebGPU load', () => {
    const report = readOffload(onGpu);
    expect(report).toEqual({
      adapter: {
        vendor: 'mesa',
        architecture: 'software',
        description: 'llvmpipe: Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) 0.0.1',
      },
      layers: { offloaded: 5, total: 5 },
      graph: { nodes: 147, splits: 2 },
      projectorBackend: 'WebGPU',
      projectorSplits: 1,
    });
    expect(notOnGpu(report)).toBeUndefined();
  });

  test('a load that silently ran on the CPU is told apart', () => {
    expect(notOnGpu(readOffload(onCpu))).toMatch(/opened no adapter/);
    const partial = onGpu.map((line) => line.replace('5/5', '3/5'));
    expect(notOnGpu(readOffload(partial))).toBe('llama.cpp offloaded 3 of 5 layers to the GPU');
    expect(notOnGpu(readOffload(onGpu.slice(0, 2)))).toMatch(/no `offloaded N\/M layers/);
  });
});
