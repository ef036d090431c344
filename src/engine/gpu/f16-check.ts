// A tiny check of an adapter before a model is trusted to it: an f16 compute shader, run and read
// back. llama.cpp's WebGPU backend needs `shader-f16`, and a browser whose WebGPU advertises it but
// computes wrong (reports said Firefox 154 gave no tokens on WebGPU) would otherwise load a model
// that answers nothing, with no error anywhere. The check costs one small pipeline (tens of ms).

/** The values the shader squares and adds 0.5 to in f16: all exact in f16, as are the answers. */
const inputs = [1, 2, 3, -4];
const expected = inputs.map((x) => x * x + 0.5);

const shader = `enable f16;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> result: array<f32>;
@compute @workgroup_size(${inputs.length})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let x = f16(a[id.x]);
  result[id.x] = f32(x * x + f16(0.5));
}`;

/** How long the check may take before it counts as failed (a GPU that never answers). */
export const f16CheckTimeoutMs = 10_000;

/* eslint-disable @typescript-eslint/no-explicit-any -- WebGPU's types are not in this build. */
/** The part of a `GPUAdapter` the check uses. */
export interface F16CheckAdapter {
  requestDevice(descriptor?: { requiredFeatures?: string[] }): Promise<any>;
}

// GPUBufferUsage and GPUMapMode bits, as the WebGPU specification numbers them.
const usage = { mapRead: 0x1, copySrc: 0x4, copyDst: 0x8, storage: 0x80 };
const mapRead = 0x1;

async function runShader(adapter: F16CheckAdapter): Promise<number[]> {
  const device = await adapter.requestDevice({ requiredFeatures: ['shader-f16'] });
  try {
    const bytes = inputs.length * 4;
    const input = device.createBuffer({ size: bytes, usage: usage.storage | usage.copyDst });
    device.queue.writeBuffer(input, 0, new Float32Array(inputs));
    const output = device.createBuffer({ size: bytes, usage: usage.storage | usage.copySrc });
    const readback = device.createBuffer({ size: bytes, usage: usage.mapRead | usage.copyDst });
    const pipeline = await device.createComputePipelineAsync({
      layout: 'auto',
      compute: { module: device.createShaderModule({ code: shader }), entryPoint: 'main' },
    });
    const bindGroup = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: input } },
        { binding: 1, resource: { buffer: output } },
      ],
    });
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(1);
    pass.end();
    encoder.copyBufferToBuffer(output, 0, readback, 0, bytes);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(mapRead);
    const values = Array.from(new Float32Array(readback.getMappedRange().slice(0)));
    readback.unmap();
    return values;
  } finally {
    device.destroy();
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * Runs the f16 check on `adapter`: undefined when it computed right, else why WebGPU is not to be
 * trusted with a model (what it answered, or how it failed), for the engine's fallback reason.
 */
export async function checkF16Compute(
  adapter: F16CheckAdapter,
  timeoutMs = f16CheckTimeoutMs,
): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const values = await Promise.race([runShader(adapter), timeout]);
    if (values.every((value, index) => value === expected[index])) return undefined;
    return `WebGPU failed lmtab's f16 check: a compute shader gave [${values.join(', ')}] where [${expected.join(', ')}] is right`;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `WebGPU failed lmtab's f16 check: ${message}`;
  } finally {
    clearTimeout(timer);
  }
}
