import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memory64AddressSpace } from '../memory/memory-fit.js';
import { importedMemoryMax, raiseGlueHeapMax, raiseImportedMemoryMax } from './memory64-build.js';

const stock = new URL('../../../node_modules/@wllama/wllama/', import.meta.url);

describe("wllama's stock build with its memory raised", () => {
  it('declares a 16 GiB maximum for its imported memory, and nothing else in the file moves', () => {
    const wasm = new Uint8Array(readFileSync(new URL('esm/wasm/wllama.wasm', stock)));
    // As published: linked with -sMAXIMUM_MEMORY=4096MB.
    expect(importedMemoryMax(wasm)).toBe(65536);
    const raised = raiseImportedMemoryMax(wasm, memory64AddressSpace / 65536);
    expect(importedMemoryMax(raised)).toBe(262144);
    // 65536 and 262144 both take three LEB128 bytes: the file keeps its size and every other byte.
    expect(raised.length).toBe(wasm.length);
    const differing = raised.filter((byte, i) => byte !== wasm[i]).length;
    expect(differing).toBe(1);
  });

  it("raises the glue's memory and heap maximum, and refuses a glue it does not know", () => {
    const glue = readFileSync(new URL('src/wasm/wllama.js', stock), 'utf8');
    const raised = raiseGlueHeapMax(glue, memory64AddressSpace);
    expect(raised).not.toContain('maximum:65536n');
    expect(raised).not.toContain('getHeapMax=()=>4294967296');
    expect(raised).toContain('lmtabPages=262144');
    // A build whose glue changed fails loudly instead of loading with a 4 GiB cap.
    expect(() => raiseGlueHeapMax(raised, memory64AddressSpace)).toThrow(/exactly one/);
  });
});
