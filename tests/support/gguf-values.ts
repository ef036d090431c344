import type { GgufTensor, GgufValue } from './gguf-writer.js';

// The typed metadata values and tensor shapes the fixtures' writers share.

export const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
export const f32 = (value: number): GgufValue => ({ type: 'float32', value });
export const str = (value: string): GgufValue => ({ type: 'string', value });
export const bool = (value: boolean): GgufValue => ({ type: 'bool', value });

/** Small random weights (seeded per tensor name by the writer). */
export const randomWeights = { kind: 'normal', std: 0.02 } as const;
export const ones = { kind: 'constant', value: 1 } as const;
export const zeros = { kind: 'constant', value: 0 } as const;

/** An F16 tensor of random weights. */
export function f16Tensor(name: string, dims: number[]): GgufTensor {
  return { name, dims, type: 'F16', data: randomWeights };
}

/** An F32 tensor. */
export function f32Tensor(name: string, dims: number[], data: GgufTensor['data']): GgufTensor {
  return { name, dims, type: 'F32', data };
}

/** A layer norm of width `n`: weight 1, bias 0. */
export function layerNorm(prefix: string, n: number): GgufTensor[] {
  return [f32Tensor(`${prefix}.weight`, [n], ones), f32Tensor(`${prefix}.bias`, [n], zeros)];
}
