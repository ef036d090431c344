// Types of wasm/glue-patches.mjs for the TypeScript code that imports it (src/engine's tests).
export declare function mediaMarkerFor(wasm: Uint8Array): string;
export declare function withMediaMarker(glue: string, marker: string): string;
export declare function withEmptyPoolStart(glue: string): string;
export declare function withUnsignedResults(glue: string): string;
export declare const kernelLogLines: { relaxed: string; ggml: string };
export declare function withKernels(
  glue: string,
  kernelsWasm: Uint8Array,
  slots: Record<string, number>,
): string;
export declare function withoutKernels(glue: string): string;
