import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kernelLogLines } from './kernel-log-lines.js';
import {
  findMemory64KernelSlots,
  memory64KernelLogLines,
  withMemory64Kernels,
  withoutMemory64Kernels,
} from './memory64-kernels.js';

const stock = new URL('../../../node_modules/@wllama/wllama/', import.meta.url);
const wasm = new Uint8Array(readFileSync(new URL('esm/wasm/wllama.wasm', stock)));
const glue = readFileSync(new URL('src/wasm/wllama.js', stock), 'utf8');
const kernels = new Uint8Array(
  readFileSync(new URL('../../../wasm/prebuilt/lmtab-kernels64.wasm', import.meta.url)),
);

describe("lmtab's kernels in wllama's memory64 build", () => {
  it("finds ggml's generic Q8_0, Q4_K, Q6_K dot products and Q8_0 to-float by name, one slot each", () => {
    const slots = findMemory64KernelSlots(wasm);
    expect(Object.keys(slots).sort()).toEqual([
      'lmtab_dequantize_row_q8_0',
      'lmtab_vec_dot_q4_K_q8_K',
      'lmtab_vec_dot_q6_K_q8_K',
      'lmtab_vec_dot_q8_0_q8_0',
    ]);
    // Four different slots of the table (7405 entries in 3.13.0, from slot 1).
    expect(new Set(Object.values(slots)).size).toBe(4);
    for (const slot of Object.values(slots)) expect(slot).toBeGreaterThan(0);
  });

  it("refuses a wasm without function names rather than guessing ggml's slots", () => {
    // The custom section "name" renamed: the finder sees a build stripped of its names.
    const stripped = wasm.slice();
    const at = Buffer.from(stripped).indexOf(Buffer.from('\x04name'));
    stripped[at + 1] = 'N'.charCodeAt(0);
    expect(() => findMemory64KernelSlots(stripped)).toThrow(/no function names/);
  });

  it("puts the kernels in every thread's table after the glue takes it, and logs which run", () => {
    const slots = findMemory64KernelSlots(wasm);
    const edited = withMemory64Kernels(glue, kernels, slots);
    const install = edited.indexOf('wasmTable.set(BigInt(slots[name]),kernels[name])');
    const taken = edited.indexOf('wasmTable=wasmExports["__indirect_function_table"]');
    expect(taken).toBeGreaterThan(0);
    expect(install).toBeGreaterThan(taken);
    expect(edited).toContain(`var slots=${JSON.stringify(slots)};`);
    expect(edited).toContain(Buffer.from(kernels).toString('base64'));
    // The same line as lmtab's wasm32 build: the engine reports relaxed-simd kernels from it.
    expect(memory64KernelLogLines.relaxed).toBe(kernelLogLines.relaxed);
    expect(edited).toContain(JSON.stringify(memory64KernelLogLines.relaxed));
    expect(edited).toContain(JSON.stringify(memory64KernelLogLines.generic));
    // The glue parses as a script.
    expect(() => new Function(edited)).not.toThrow();
    // A glue that changed fails loudly.
    expect(() => withMemory64Kernels('var x;', kernels, slots)).toThrow(/exactly once/);
  });

  it('says in the log why the kernels are not in', () => {
    const edited = withoutMemory64Kernels(glue, 'not installed (a reason)');
    expect(edited).toContain(
      JSON.stringify("lmtab-kernels: not installed (a reason); ggml's generic dot products run"),
    );
    expect(() => new Function(edited)).not.toThrow();
  });
});
