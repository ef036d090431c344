/**
 * lmtab's relaxed-SIMD kernels (`wasm/kernels/`, built for wasm64 as `lmtab-kernels64.wasm`) in
 * wllama's stock memory64 build, the CPU engine for models past lmtab's wasm32 build's 4 GiB.
 *
 * That build is compiled with `GGML_CPU_GENERIC`: its Q8_0, Q4_K and Q6_K dot products and its Q8_0
 * to-float are plain C. ggml calls them through function pointers (table slots) in its type traits,
 * so, as lmtab's own build does (`wasm/glue-patches.mjs`), the glue puts lmtab's functions in those
 * slots in every thread's instance. The stock wasm keeps its function names (a `name` section), so
 * the slots are found by name here, in the bytes the worker loads, and each is checked to hold a
 * function of the kernel's type. Where anything does not match (another wllama, a build without
 * names) or the browser has no relaxed SIMD, ggml's generic kernels stay and the log says why.
 */

import { kernelLogLines } from './kernel-log-lines.js';
import { WasmReader } from './wasm-reader.js';

/** Each kernel's export and the stock build's function it replaces, with its wasm64 type. */
const kernels = {
  lmtab_vec_dot_q8_0_q8_0: 'ggml_vec_dot_q8_0_q8_0',
  lmtab_vec_dot_q4_K_q8_K: 'ggml_vec_dot_q4_K_q8_K',
  lmtab_vec_dot_q6_K_q8_K: 'ggml_vec_dot_q6_K_q8_K',
  lmtab_dequantize_row_q8_0: 'dequantize_row_q8_0',
} as const;

export type KernelName = keyof typeof kernels;

// vec_dot(int n, float *s, size_t bs, const void *vx, size_t bx, const void *vy, size_t by, int nrc)
// and to_float(const void *x, float *y, int64_t k), with 64-bit pointers and sizes.
const vecDotType = '(i32,i64,i64,i64,i64,i64,i64,i32)->()';
const toFloatType = '(i64,i64,i64)->()';

/** The log lines of a memory64 load with lmtab's kernels, and of one that keeps ggml's. */
export const memory64KernelLogLines = {
  /** The wasm32 build's line, so the engine reports `relaxed-simd` from either. */
  relaxed: kernelLogLines.relaxed,
  generic: "lmtab-kernels: this browser has no relaxed SIMD; ggml's generic dot products run",
} as const;

const valueTypes: Record<number, string> = {
  0x7f: 'i32',
  0x7e: 'i64',
  0x7d: 'f32',
  0x7c: 'f64',
  0x7b: 'v128',
  0x70: 'funcref',
  0x6f: 'externref',
};

/** What the finder needs of a module: function types, table elements, function names. */
function readModule(wasm: Uint8Array) {
  const reader = new WasmReader(wasm, 8);
  const types: string[] = [];
  const functionTypes: number[] = [];
  const slotsOf = new Map<number, number[]>();
  const names = new Map<string, number[]>();
  while (reader.at < wasm.length) {
    const id = reader.byte();
    const size = reader.leb();
    const end = reader.at + size;
    if (id === 1) {
      for (let count = reader.leb(); count > 0; count--) {
        if (reader.byte() !== 0x60) throw new Error('expected a function type');
        const params = Array.from({ length: reader.leb() }, () => valueTypes[reader.byte()]);
        const results = Array.from({ length: reader.leb() }, () => valueTypes[reader.byte()]);
        types.push(`(${params.join(',')})->(${results.join(',')})`);
      }
    } else if (id === 2) {
      for (let count = reader.leb(); count > 0; count--) {
        reader.name();
        reader.name();
        const kind = reader.byte();
        if (kind === 0) functionTypes.push(reader.leb());
        else if (kind === 1) {
          reader.byte();
          reader.limits();
        } else if (kind === 2) reader.limits();
        else if (kind === 3) reader.at += 2;
        else if (kind === 4) {
          reader.byte();
          reader.leb();
        } else throw new Error(`unknown import kind ${kind}`);
      }
    } else if (id === 3) {
      for (let count = reader.leb(); count > 0; count--) functionTypes.push(reader.leb());
    } else if (id === 9) {
      for (let count = reader.leb(); count > 0; count--) {
        // Active segments of function indices on table 0 (flags 0), as emscripten writes them.
        const flags = reader.leb();
        if (flags !== 0) throw new Error(`unsupported element segment flags ${flags}`);
        const opcode = reader.byte();
        if (opcode !== 0x41 && opcode !== 0x42) {
          throw new Error(`unsupported element offset opcode 0x${opcode.toString(16)}`);
        }
        const offset = reader.offset();
        if (reader.byte() !== 0x0b) throw new Error('unterminated element offset');
        const length = reader.leb();
        for (let i = 0; i < length; i++) {
          const index = reader.leb();
          slotsOf.set(index, [...(slotsOf.get(index) ?? []), offset + i]);
        }
      }
    } else if (id === 0) {
      const nameEnd = end;
      if (reader.name() === 'name') {
        while (reader.at < nameEnd) {
          const sub = reader.byte();
          const subEnd = reader.leb() + reader.at;
          if (sub === 1) {
            for (let count = reader.leb(); count > 0; count--) {
              const index = reader.leb();
              const name = reader.name();
              names.set(name, [...(names.get(name) ?? []), index]);
            }
          }
          reader.at = subEnd;
        }
      }
    }
    reader.at = end;
  }
  return { types, functionTypes, slotsOf, names };
}

/**
 * The table slot of each function lmtab's kernels replace in wllama's memory64 wasm, found by its
 * name and checked for its type and for being in exactly one slot. Throws, saying what differs,
 * where the wasm is not the build this was written for.
 */
export function findMemory64KernelSlots(wasm: Uint8Array): Record<KernelName, number> {
  const module = readModule(wasm);
  if (module.names.size === 0) throw new Error('the wasm has no function names');
  const slots = {} as Record<KernelName, number>;
  for (const [kernel, ggml] of Object.entries(kernels) as [KernelName, string][]) {
    const indices = module.names.get(ggml) ?? [];
    if (indices.length !== 1) {
      throw new Error(`expected one function named ${ggml}, found ${indices.length}`);
    }
    const index = indices[0]!;
    const type = module.types[module.functionTypes[index] ?? -1];
    const expected = kernel === 'lmtab_dequantize_row_q8_0' ? toFloatType : vecDotType;
    if (type !== expected) throw new Error(`${ggml} has type ${type}, not ${expected}`);
    const found = module.slotsOf.get(index) ?? [];
    if (found.length !== 1) {
      throw new Error(`expected ${ggml} in one table slot, found ${found.length}`);
    }
    slots[kernel] = found[0]!;
  }
  return slots;
}

/** Where wllama's stock glue takes the wasm's function table, in every thread. */
const tableAssignment =
  '__indirect_function_table=wasmTable=wasmExports["__indirect_function_table"]';

function base64(bytes: Uint8Array): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(text);
}

/** `glue` with `code` run right after the wasm's function table is taken, in every thread. */
function afterTable(glue: string, code: string): string {
  const at = glue.indexOf(tableAssignment);
  if (at < 0 || glue.indexOf(tableAssignment, at + 1) >= 0) {
    throw new Error("wllama's glue does not take its function table exactly once");
  }
  const end = at + tableAssignment.length;
  return glue.slice(0, end) + code + glue.slice(end);
}

/**
 * wllama's stock glue with lmtab's wasm64 kernels put in `slots` of each thread's table (a table64,
 * indexed by BigInt) once the wasm's exports are taken. The main thread logs which kernels run.
 */
export function withMemory64Kernels(
  glue: string,
  kernelsWasm: Uint8Array,
  slots: Record<KernelName, number>,
): string {
  return afterTable(
    glue,
    [
      ';(function(){',
      `var bytes=Uint8Array.from(atob("${base64(kernelsWasm)}"),function(c){return c.charCodeAt(0)});`,
      `if(!WebAssembly.validate(bytes)){if(!ENVIRONMENT_IS_PTHREAD)err(${JSON.stringify(memory64KernelLogLines.generic)});return}`,
      'var kernels=new WebAssembly.Instance(new WebAssembly.Module(bytes),{env:{memory:wasmMemory}}).exports;',
      `var slots=${JSON.stringify(slots)};`,
      'for(var name in slots)wasmTable.set(BigInt(slots[name]),kernels[name]);',
      `if(!ENVIRONMENT_IS_PTHREAD)err(${JSON.stringify(memory64KernelLogLines.relaxed)})`,
      '})()',
    ].join(''),
  );
}

/** wllama's stock glue logging, once, why lmtab's kernels are not in it. */
export function withoutMemory64Kernels(glue: string, reason: string): string {
  const line = `lmtab-kernels: ${reason}; ggml's generic dot products run`;
  return afterTable(glue, `;if(!ENVIRONMENT_IS_PTHREAD)err(${JSON.stringify(line)})`);
}
