/**
 * The lines the CPU build's glue logs at a load (`kernelLogLines` in `wasm/glue-patches.mjs`): with
 * relaxed SIMD, lmtab's own Q8_0, Q4_K and Q6_K dot products and Q8_0 to-float (`wasm/kernels/`) run;
 * without, ggml's. A leaf of its own because both the wasm32 build (`cpu-build.ts`) and the memory64
 * kernels (`memory64-kernels.ts`) log and read them, and the one imports the other's build.
 */
export const kernelLogLines = {
  relaxed: 'lmtab-kernels: relaxed SIMD dot products for Q8_0, Q4_K and Q6_K, SIMD Q8_0 to floats',
  ggml: "lmtab-kernels: this browser has no relaxed SIMD; ggml's own dot products run",
} as const;
