import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import packageJson from '../package.json';
import { llamaCppPatches, patchesDigest } from './cpp-patches.mjs';
import { kernelLogLines, mediaMarkerFor } from './glue-patches.mjs';
import { findKernels } from './kernel-table.mjs';
import { countSimdOpcodes } from './simd-opcodes.mjs';

const dir = join(import.meta.dirname, 'prebuilt');
const read = (name: string) => readFileSync(join(dir, name));

interface Manifest {
  llamaCpp: { source: string; commit: string; patches: string };
  glue: string;
  emscripten: string;
  cmake: string[];
  compileFlags: string[];
  features: Record<string, unknown>;
  simdOpcodes: { 'i32x4.dot_i16x8_s': number };
  files: Record<string, { bytes: number; sha256: string }>;
  mediaMarker: string;
  kernels: {
    compiler: string;
    flags: string[];
    slots: Record<string, number>;
    f16Table: number;
    simdOpcodes: { 'i16x8.relaxed_dot_i8x16_i7x16_s': number };
    memory64: { target: string; simdOpcodes: Record<string, number> };
  };
}

// `npm run build:wasm` writes prebuilt/; until a build is committed the app runs wllama's stock
// build everywhere (src/engine/cpu-build-files.ts) and there is nothing to check.
const built = existsSync(join(dir, 'manifest.json'));
const manifest = (built ? JSON.parse(read('manifest.json').toString()) : {}) as Manifest;
const sourceEnv = Object.fromEntries(
  readFileSync(join(import.meta.dirname, 'source.env'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => line.split('=') as [string, string]),
);

describe.skipIf(!built)("lmtab's committed CPU build (wasm/prebuilt)", () => {
  it('is the files its manifest records, byte for byte', () => {
    expect(Object.keys(manifest.files).sort()).toEqual([
      'lmtab-cpu.js',
      'lmtab-cpu.wasm',
      'lmtab-kernels.wasm',
      'lmtab-kernels64.wasm',
    ]);
    for (const [name, recorded] of Object.entries(manifest.files)) {
      const bytes = read(name);
      expect({ name, bytes: bytes.length }).toEqual({ name, bytes: recorded.bytes });
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(recorded.sha256);
    }
  });

  it('was built from the sources wasm/source.env and package.json name', () => {
    expect(manifest.llamaCpp.commit).toBe(sourceEnv.LLAMA_CPP_COMMIT);
    // With today's edits to llama.cpp (wasm/cpp-patches.mjs): an edit changed without a rebuild fails.
    expect(manifest.llamaCpp.patches).toBe(patchesDigest(llamaCppPatches));
    expect(manifest.llamaCpp.source).toContain(
      `node-llama-cpp@${sourceEnv.NODE_LLAMA_CPP_VERSION}`,
    );
    // 3.8.1's glue (npm alias wllama-cpu-glue), speaking the wire format of the wllama lmtab loads.
    expect(manifest.glue).toContain(
      `@wllama/wllama@${sourceEnv.WLLAMA_GLUE_VERSION} cpp/ (speaking ${sourceEnv.WLLAMA_VERSION} wire format)`,
    );
    expect(packageJson.devDependencies['wllama-cpu-glue']).toBe(
      `npm:@wllama/wllama@${sourceEnv.WLLAMA_GLUE_VERSION}`,
    );
    expect(sourceEnv.WLLAMA_VERSION).toBe(packageJson.devDependencies['@wllama/wllama']);
    expect(manifest.emscripten).toBe('3.1.6');
  });

  it("with ggml's wasm SIMD kernels, wasm32 threads and JavaScript exceptions, no WebGPU", () => {
    expect(manifest.cmake).toContain('-DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm');
    expect(manifest.compileFlags).toEqual(expect.arrayContaining(['-msimd128', '-pthread']));
    expect(manifest.features).toMatchObject({
      memory: 'wasm32',
      simd128: true,
      threads: true,
      exceptions: 'javascript',
      webgpu: false,
    });
    const counted = countSimdOpcodes(read('lmtab-cpu.wasm'));
    expect(counted['i32x4.dot_i16x8_s']).toBe(manifest.simdOpcodes['i32x4.dot_i16x8_s']);
    // ggml's arch/wasm/quants.c uses it in every integer dot product; a GENERIC build has none.
    expect(counted['i32x4.dot_i16x8_s']).toBeGreaterThan(20);
  });

  it("exports what wllama's worker calls, and serves its pthread worker from the glue", () => {
    const glue = read('lmtab-cpu.js').toString();
    expect(glue).toMatch(
      /var Module\s*=\s*typeof Module\s*!=\s*"undefined"\s*\?\s*Module\s*:\s*\{\};/,
    );
    for (const name of ['wllama_start', 'wllama_action', 'wllama_malloc', 'wllama_exit']) {
      expect(glue).toContain(`_${name}`);
    }
    expect(glue).toContain('lmtabPthreadWorkerUrl');
  });

  it("pins the media marker that the engine hands wllama (the glue's load result has none)", () => {
    expect(manifest.mediaMarker).toBe(mediaMarkerFor(read('lmtab-cpu.wasm')));
    expect(read('lmtab-cpu.js').toString()).toContain(
      `var ENV={LLAMA_MEDIA_MARKER:${JSON.stringify(manifest.mediaMarker)}};`,
    );
  });

  it('reads addresses past 2 GiB: number results unsigned, file reads at unsigned offsets and addresses', () => {
    const glue = read('lmtab-cpu.js').toString();
    expect(glue).toContain('if(returnType==="number")return ret>>>0;return ret}');
    // cwrap wraps wllama_malloc (numbers only) in ccall too, so its address is read unsigned.
    expect(glue).toContain('var numericRet=returnType!=="string"&&returnType!=="number";');
    for (const unsigned of [
      'UTF8ToString(Number(path_ptr)>>>0)',
      'Number(offset)>>>0',
      'Number(req_size)>>>0',
      'Number(out_ptr)>>>0',
    ]) {
      expect(glue).toContain(unsigned);
    }
  });

  it('reads the model from Blob slices into one reused buffer, and still takes an ArrayBuffer', () => {
    const glue = read('lmtab-cpu.js').toString();
    const read_ = glue.slice(glue.indexOf('function __asyncjs__js_file_read'));
    expect(read_).toContain('if(!(data instanceof Blob))');
    expect(read_).toContain('getReader({mode:"byob"})');
    expect(read_).toContain('globalThis.lmtabReadScratch=scratch');
  });

  it('starts with one thread: the glue releases its start when the pthread pool is empty', () => {
    expect(read('lmtab-cpu.js').toString()).toContain(
      'var numWorkersToLoad=PThread.unusedWorkers.length;if(!numWorkersToLoad)removeRunDependency("wasm-instantiate");',
    );
  });

  it("installs lmtab's kernels in the table slots of ggml's Q8_0, Q4_K and Q6_K dot products and Q8_0 to-float", () => {
    const { slots, entries, f16Table } = findKernels(read('lmtab-cpu.wasm'));
    expect(manifest.kernels.slots).toEqual({
      lmtab_vec_dot_q8_0_q8_0: slots.q8_0,
      lmtab_vec_dot_q4_K_q8_K: slots.q4_K,
      lmtab_vec_dot_q6_K_q8_K: slots.q6_K,
      lmtab_dequantize_row_q8_0: slots.q8_0ToFloat,
    });
    expect(manifest.kernels.compiler).toMatch(/clang version 19\./);
    expect(manifest.kernels.flags).toContain('-mrelaxed-simd');
    const kernels = read('lmtab-kernels.wasm');
    const counted = countSimdOpcodes(kernels);
    expect(counted['i16x8.relaxed_dot_i8x16_i7x16_s']).toBe(
      manifest.kernels.simdOpcodes['i16x8.relaxed_dot_i8x16_i7x16_s'],
    );
    expect(counted['i16x8.relaxed_dot_i8x16_i7x16_s']).toBeGreaterThanOrEqual(16);
    const glue = read('lmtab-cpu.js').toString();
    expect(glue).toContain(`var lmtabKernelSlots=${JSON.stringify(manifest.kernels.slots)};`);
    // Tiles of 4 by 4 (and 2 by 2) go to the dot products: the glue sets nrows to 4 at their
    // type_traits_cpu entries, which mul_mat's edit reads (wasm/cpp-patches.mjs).
    expect(glue).toContain('words[at+4]=4}');
    expect(manifest.kernels.tiles).toEqual({
      lmtab_vec_dot_q8_0_q8_0: entries.q8_0,
      lmtab_vec_dot_q4_K_q8_K: entries.q4_K,
      lmtab_vec_dot_q6_K_q8_K: entries.q6_K,
    });
    // The Q8_0 kernel was compiled with this build's address of ggml's table of halves.
    expect(manifest.kernels.f16Table).toBe(f16Table);
    expect(glue).toContain(`var lmtabKernelTiles=${JSON.stringify(manifest.kernels.tiles)};`);
    expect(glue).toContain(`var lmtabKernelWasm="${kernels.toString('base64')}";`);
    expect(glue).toMatch(/wasmTable=Module\["asm"\]\["\w+"\];lmtabUseKernels\(wasmTable\);/);
    for (const line of Object.values(kernelLogLines)) expect(glue).toContain(JSON.stringify(line));
  });

  it("has the same kernels built for wasm64, for wllama's memory64 build", () => {
    const kernels64 = read('lmtab-kernels64.wasm');
    // A wasm64 module: its imported memory's limits carry the 64-bit flag (0x04).
    const memoryImport = kernels64.indexOf(Buffer.from('\x06memory\x02'));
    expect(memoryImport).toBeGreaterThan(0);
    expect(kernels64[memoryImport + 8]! & 0x04).toBe(0x04);
    const counted = countSimdOpcodes(kernels64);
    expect(manifest.kernels.memory64.simdOpcodes).toEqual(counted);
    // The same relaxed dot products as the wasm32 module's.
    expect(counted['i16x8.relaxed_dot_i8x16_i7x16_s']).toBe(
      manifest.kernels.simdOpcodes['i16x8.relaxed_dot_i8x16_i7x16_s'],
    );
  });
});
