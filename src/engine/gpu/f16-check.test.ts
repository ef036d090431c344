import { describe, expect, it } from 'vitest';
import { checkF16Compute, type F16CheckAdapter } from './f16-check.js';

/**
 * An adapter whose device "computes" `answer` (or never maps its read-back buffer): every call the
 * check makes is taken, and the device is destroyed afterwards.
 */
function fakeAdapter(answer: number[] | 'hang', destroyed: { count: number }): F16CheckAdapter {
  const buffer = () => ({
    mapAsync: () => (answer === 'hang' ? new Promise(() => undefined) : Promise.resolve()),
    getMappedRange: () => new Float32Array(answer === 'hang' ? [] : answer).buffer,
    unmap: () => undefined,
  });
  const pass = {
    setPipeline: () => undefined,
    setBindGroup: () => undefined,
    dispatchWorkgroups: () => undefined,
    end: () => undefined,
  };
  const device = {
    queue: { writeBuffer: () => undefined, submit: () => undefined },
    createBuffer: buffer,
    createShaderModule: () => ({}),
    createComputePipelineAsync: async () => ({ getBindGroupLayout: () => ({}) }),
    createBindGroup: () => ({}),
    createCommandEncoder: () => ({
      beginComputePass: () => pass,
      copyBufferToBuffer: () => undefined,
      finish: () => ({}),
    }),
    destroy: () => void (destroyed.count += 1),
  };
  return { requestDevice: async () => device };
}

describe('checkF16Compute', () => {
  it('passes an adapter that computes the f16 shader right', async () => {
    const destroyed = { count: 0 };
    expect(await checkF16Compute(fakeAdapter([1.5, 4.5, 9.5, 16.5], destroyed))).toBeUndefined();
    expect(destroyed.count).toBe(1);
  });

  it('says what a wrong adapter answered, and what is right', async () => {
    const destroyed = { count: 0 };
    expect(await checkF16Compute(fakeAdapter([0, 0, 0, 0], destroyed))).toBe(
      "WebGPU failed lmtab's f16 check: a compute shader gave [0, 0, 0, 0] where [1.5, 4.5, 9.5, 16.5] is right",
    );
    expect(destroyed.count).toBe(1);
  });

  it('fails an adapter that never answers, after its time', async () => {
    expect(await checkF16Compute(fakeAdapter('hang', { count: 0 }), 20)).toBe(
      "WebGPU failed lmtab's f16 check: no answer within 20 ms",
    );
  });

  it('fails an adapter that refuses the device', async () => {
    const refusing: F16CheckAdapter = {
      requestDevice: () => Promise.reject(new Error('shader-f16 is not supported')),
    };
    expect(await checkF16Compute(refusing)).toBe(
      "WebGPU failed lmtab's f16 check: shader-f16 is not supported",
    );
  });
});
