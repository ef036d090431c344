import type { CpuBuild } from './engine/index.js';

// The committed build (`wasm/prebuilt/`, `npm run build:wasm`), as the app bundle holds it: Vite's
// glob, so this file sits beside the bundle's entries, out of src/engine (whose index Node code
// imports, and Node has no `import.meta.glob`). A glob, not an import, so that a
// checkout without the files still builds (and runs every load on wllama's stock build).
const files = import.meta.glob<string>(
  '../wasm/prebuilt/{lmtab-cpu.js,lmtab-cpu.wasm,lmtab-kernels64.wasm}',
  {
    query: '?url',
    import: 'default',
    eager: true,
  },
);
const manifests = import.meta.glob<{ mediaMarker?: string }>('../wasm/prebuilt/manifest.json', {
  import: 'default',
  eager: true,
});

/** lmtab's CPU build's URLs in this bundle, or undefined when `wasm/prebuilt/` has no build. */
export const lmtabCpuBuild: CpuBuild | undefined = (() => {
  const glueUrl = files['../wasm/prebuilt/lmtab-cpu.js'];
  const wasmUrl = files['../wasm/prebuilt/lmtab-cpu.wasm'];
  const mediaMarker = manifests['../wasm/prebuilt/manifest.json']?.mediaMarker;
  // Its kernels for wllama's memory64 build, used for the models this build cannot hold.
  const memory64KernelsUrl = files['../wasm/prebuilt/lmtab-kernels64.wasm'];
  return glueUrl && wasmUrl && mediaMarker
    ? { glueUrl, wasmUrl, mediaMarker, memory64KernelsUrl }
    : undefined;
})();

/**
 * Whether the app's CPU-only loads use lmtab's CPU build (when it is in the bundle). WebGPU loads
 * always run wllama's stock build.
 */
export const cpuBuildByDefault = true;
