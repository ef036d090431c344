/**
 * wllama's stock build with its memory raised past 4 GiB, for CPU loads lmtab's wasm32 build cannot
 * hold (LFM2-8B-A1B, F16 files over 4 GiB).
 *
 * wllama 3.13.0's stock build is memory64 (64-bit pointers and `size_t`, so its GGUF reader counts
 * past 4 GiB), but it was linked with `-sMAXIMUM_MEMORY=4096MB`: its wasm imports a memory of at
 * most 65536 pages, and its emscripten glue creates one of that size and answers 4 GiB as the
 * heap's maximum. Nothing else in it stops at 4 GiB, so lmtab raises the three numbers: the
 * import's declared maximum in the wasm, and the glue's memory and heap maximum. Its own kernels are
 * ggml's generic ones (no wasm SIMD dot products); where lmtab's build is the chosen CPU engine,
 * lmtab's kernels take the place of the Q8_0, Q4_K and Q6_K ones (`memory64-kernels.ts`). It is
 * used only where lmtab's wasm32 build cannot hold the model. Needs memory64 and JSPI (Chromium 137
 * and later).
 */

import { WasmReader } from './wasm-reader.js';
import {
  findMemory64KernelSlots,
  withMemory64Kernels,
  withoutMemory64Kernels,
} from './memory64-kernels.js';
import { memory64AddressSpace } from '../memory/memory-fit.js';

const pageBytes = 65536;

/** Whether this browser runs the memory64 build: 64-bit memories and JSPI. */
export function memory64Supported(): boolean {
  try {
    const wasm = WebAssembly as unknown as { Suspending?: unknown };
    if (typeof wasm.Suspending !== 'function') return false;
    new WebAssembly.Memory({
      initial: 1n,
      address: 'i64',
    } as unknown as WebAssembly.MemoryDescriptor);
    return true;
  } catch {
    return false;
  }
}

function encodeLeb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

function concat(parts: ArrayLike<number>[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Where a wasm binary's imported memory keeps its declared maximum (page count). */
interface ImportedMemory {
  /** Offsets of the import section's size, and of its contents. */
  sizeAt: number;
  start: number;
  size: number;
  /** The maximum's encoded bytes, and its value. */
  maxAt: number;
  maxEnd: number;
  max: number;
}

function findImportedMemory(wasm: Uint8Array): ImportedMemory {
  const reader = new WasmReader(wasm, 8);
  while (reader.at < wasm.length) {
    const id = reader.byte();
    const sizeAt = reader.at;
    const size = reader.leb();
    const start = reader.at;
    if (id !== 2) {
      reader.skip(size);
      continue;
    }
    const count = reader.leb();
    for (let i = 0; i < count; i++) {
      reader.skip(reader.leb());
      reader.skip(reader.leb());
      const kind = reader.byte();
      if (kind === 0) reader.leb();
      else if (kind === 1) {
        reader.byte();
        reader.limits();
      } else if (kind === 2) {
        const { maxAt, maxEnd } = reader.limits();
        if (maxAt === undefined || maxEnd === undefined) break;
        const max = new WasmReader(wasm, maxAt).leb();
        return { sizeAt, start, size, maxAt, maxEnd, max };
      } else if (kind === 3) {
        reader.byte();
        reader.byte();
      } else if (kind === 4) {
        reader.byte();
        reader.leb();
      } else throw new Error(`the wasm file has an import of unknown kind ${kind}`);
    }
    break;
  }
  throw new Error('the wasm file imports no memory with a maximum size');
}

/** The declared maximum (in 64 KiB pages) of the memory a wasm binary imports. */
export function importedMemoryMax(wasm: Uint8Array): number {
  return findImportedMemory(wasm).max;
}

/**
 * `wasm` with its imported memory's declared maximum set to `pages`. Throws when the module
 * imports no memory with a maximum, so a changed build fails loudly rather than loading capped.
 */
export function raiseImportedMemoryMax(wasm: Uint8Array, pages: number): Uint8Array<ArrayBuffer> {
  const { sizeAt, start, size, maxAt, maxEnd } = findImportedMemory(wasm);
  const section = concat([
    wasm.subarray(start, maxAt),
    encodeLeb(pages),
    wasm.subarray(maxEnd, start + size),
  ]);
  return concat([
    wasm.subarray(0, sizeAt),
    encodeLeb(section.length),
    section,
    wasm.subarray(start + size),
  ]);
}

/** The glue's texts lmtab replaces, each of which must appear exactly once. */
const glueEdits = (maxBytes: number): [from: string, to: string][] => [
  // The worker hands the glue a memory of at most 4 GiB (wllama's getWasmMemory): make a larger one,
  // stepping down 1 GiB at a time where the browser refuses the size, and keep its maximum.
  [
    'if(Module["wasmMemory"]){wasmMemory=Module["wasmMemory"]}else{var INITIAL_MEMORY=Module["INITIAL_MEMORY"]||134217728;wasmMemory=new WebAssembly.Memory({initial:BigInt(INITIAL_MEMORY/65536),maximum:65536n,shared:true,address:"i64"})}',
    `for(var lmtabPages=${maxBytes / pageBytes};;lmtabPages-=16384){try{wasmMemory=new WebAssembly.Memory({initial:BigInt((Module["INITIAL_MEMORY"]||134217728)/65536),maximum:BigInt(lmtabPages),shared:true,address:"i64"});lmtabHeapMax=lmtabPages*65536;break}catch(e){if(lmtabPages<=65536)throw e}}`,
  ],
  ['var getHeapMax=()=>4294967296;', 'var lmtabHeapMax;var getHeapMax=()=>lmtabHeapMax;'],
];

/** wllama's stock emscripten glue with its memory and heap maximum raised to `maxBytes`. */
export function raiseGlueHeapMax(code: string, maxBytes: number): string {
  let out = code;
  for (const [from, to] of glueEdits(maxBytes)) {
    const at = out.indexOf(from);
    if (at < 0 || out.indexOf(from, at + 1) >= 0) {
      throw new Error(`wllama's glue does not have exactly one \`${from.slice(0, 60)}...\``);
    }
    out = out.slice(0, at) + to + out.slice(at + from.length);
  }
  return out;
}

/** What wllama's worker loads for the memory64 build: the patched wasm (a Blob URL) and glue. */
export interface Memory64Resources {
  wasmPath: string;
  jsPath: { code: string };
  compat: false;
  noWebGPU: true;
}

const prepared = new Map<string, Promise<Memory64Resources>>();

/**
 * Fetches wllama's stock wasm and raises its memory, and, given `kernelsUrl` (lmtab's wasm64
 * kernels, `memory64-kernels.ts`), puts them in its glue; once per worker and kernels (the Blob URL
 * is kept for later loads).
 */
export function memory64Resources(
  stockWasmUrl: string,
  glueCode: string,
  kernelsUrl?: string,
): Promise<Memory64Resources> {
  const key = kernelsUrl ?? '';
  let resources = prepared.get(key);
  if (!resources) {
    resources = (async () => {
      const wasm = new Uint8Array(await fetchBytes(stockWasmUrl, "wllama's wasm"));
      const raised = raiseImportedMemoryMax(wasm, memory64AddressSpace / pageBytes);
      const url = URL.createObjectURL(new Blob([raised], { type: 'application/wasm' }));
      const glue = raiseGlueHeapMax(glueCode, memory64AddressSpace);
      return {
        wasmPath: url,
        jsPath: { code: kernelsUrl ? await installKernels(glue, wasm, kernelsUrl) : glue },
        compat: false,
        noWebGPU: true,
      };
    })();
    prepared.set(key, resources);
    resources.catch(() => prepared.delete(key));
  }
  return resources;
}

async function fetchBytes(url: string, what: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${what} did not load: HTTP ${response.status}`);
  return response.arrayBuffer();
}

/** The glue with lmtab's kernels, or, where they cannot go in, saying why in the engine's log. */
async function installKernels(glue: string, wasm: Uint8Array, kernelsUrl: string) {
  let slots: ReturnType<typeof findMemory64KernelSlots>;
  try {
    slots = findMemory64KernelSlots(wasm);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return withoutMemory64Kernels(glue, `not installed in wllama's memory64 build (${reason})`);
  }
  const kernels = new Uint8Array(await fetchBytes(kernelsUrl, "lmtab's wasm64 kernels"));
  return withMemory64Kernels(glue, kernels, slots);
}
