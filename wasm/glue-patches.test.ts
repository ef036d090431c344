import { describe, expect, it } from 'vitest';
import {
  kernelLogLines,
  withKernels,
  withoutKernels,
  withUnsignedResults,
} from './glue-patches.mjs';

// The shape of emscripten 3.1.6's minified glue around the table, reduced to what the edit anchors on.
const glue =
  'var x=1;function createWasm(){function receiveInstance(instance,module){var exports=instance.exports;' +
  'Module["asm"]=exports;wasmTable=Module["asm"]["nc"];addOnInit(Module["asm"]["mc"])}}';

describe('withKernels', () => {
  it('installs the kernels right after the table is known, in every thread', () => {
    const patched = withKernels(glue, new Uint8Array([0, 97, 115, 109]), { kernel_a: 7 });
    expect(patched).toContain('wasmTable=Module["asm"]["nc"];lmtabUseKernels(wasmTable);');
    expect(patched).toContain('var lmtabKernelSlots={"kernel_a":7};');
    expect(patched).toContain('var lmtabKernelWasm="AGFzbQ==";');
    expect(patched).toContain(JSON.stringify(kernelLogLines.relaxed));
    expect(patched.indexOf('function lmtabUseKernels')).toBeLessThan(
      patched.indexOf('function createWasm'),
    );
  });

  it('replaces the kernels of a glue that has them, and withoutKernels gives the plain glue back', () => {
    const once = withKernels(glue, new Uint8Array([1]), { kernel_a: 7 });
    const again = withKernels(once, new Uint8Array([2]), { kernel_a: 8 });
    expect(again).toBe(withKernels(glue, new Uint8Array([2]), { kernel_a: 8 }));
    expect(withoutKernels(again)).toBe(glue);
  });

  it('refuses a glue whose table assignment is missing', () => {
    expect(() => withKernels(glue.replace('wasmTable=', 'table='), new Uint8Array(), {})).toThrow(
      /0 wasmTable assignments/,
    );
  });
});

describe('withUnsignedResults', () => {
  it("reads ccall's number results as unsigned, so an address past 2 GiB stays positive", () => {
    const cwrap = 'var numericRet=returnType!=="string";';
    const ccall =
      'function convertReturnValue(ret){if(returnType==="string")return UTF8ToString(ret);' +
      'if(returnType==="boolean")return Boolean(ret);return ret}';
    const patched = withUnsignedResults(ccall + cwrap);
    // cwrap no longer hands back the bare export for a number result.
    expect(patched).toContain('var numericRet=returnType!=="string"&&returnType!=="number";');
    const convert = new Function(
      'returnType',
      'ret',
      `${patched.split(cwrap.slice(0, 15))[0]!.replace('UTF8ToString(ret)', '"s"')}return convertReturnValue(ret);`,
    );
    expect(convert('number', -2_000_000_000)).toBe(2_294_967_296);
    expect(convert('boolean', 1)).toBe(true);
    expect(() => withUnsignedResults(patched)).toThrow(/exactly one/);
  });
});

describe("the edits to wllama's C++ glue (wasm/cpp-patches.mjs)", () => {
  it("each applies exactly once to 3.8.1's glue in node_modules (wllama-cpu-glue), and the build records them", async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { applyCppPatch, cppPatches } = await import('./cpp-patches.mjs');
    const cpp = join(import.meta.dirname, '..', 'node_modules', 'wllama-cpu-glue', 'cpp');
    for (const patch of cppPatches) {
      const patched = applyCppPatch(readFileSync(join(cpp, patch.file), 'utf8'), patch);
      expect(patched).toContain(patch.to);
      expect(() => applyCppPatch(patched, patch)).toThrow(/exactly one/);
    }
    const manifest = JSON.parse(
      readFileSync(join(import.meta.dirname, 'prebuilt', 'manifest.json'), 'utf8'),
    );
    expect(manifest.glue).toContain('wasm/cpp-patches.mjs');
  });
});
