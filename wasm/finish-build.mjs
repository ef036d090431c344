// Turns emscripten's output (wllama.js, wllama.worker.js, wllama.wasm) into lmtab's committed CPU
// build: one JavaScript glue that wllama's worker can load in place of its own (the pthread worker
// script is embedded, because wllama's worker answers nothing for "wllama.worker.js"; emscripten
// 3.1.6's one-thread start fixed and the media marker pinned, see wasm/glue-patches.mjs), the wasm,
// and manifest.json (sources, flags, media marker, sha256 of each file, SIMD opcode counts).
// Usage: node wasm/finish-build.mjs BUILD_DIR OUT_DIR EMSCRIPTEN_VERSION
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { llamaCppPatches, patchesDigest } from './cpp-patches.mjs';
import {
  mediaMarkerFor,
  withEmptyPoolStart,
  withMediaMarker,
  withUnsignedResults,
} from './glue-patches.mjs';
import { countSimdOpcodes } from './simd-opcodes.mjs';

const [buildDir, outDir, emscriptenVersion] = process.argv.slice(2);
if (!buildDir || !outDir || !emscriptenVersion) {
  throw new Error('usage: node wasm/finish-build.mjs BUILD_DIR OUT_DIR EMSCRIPTEN_VERSION');
}
const here = dirname(fileURLToPath(import.meta.url));
const sourceEnv = Object.fromEntries(
  readFileSync(join(here, 'source.env'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => line.split('=')),
);

const glue = readFileSync(join(buildDir, 'wllama.js'), 'utf8');
const pthreadWorker = readFileSync(join(buildDir, 'wllama.worker.js'), 'utf8');
const wasm = readFileSync(join(buildDir, 'wllama.wasm'));

// wllama's worker renames the first `var Module` and evaluates the glue with its own Module config
// (locateFile included); the pthread workers evaluate the same glue with a bare Module. The hook
// goes right after that `var Module` statement and acts only where a locateFile exists.
// Not anchored to a line start: with threads the glue opens with its GROWABLE_HEAP helpers on the
// same (minified) line.
const firstStatement =
  /var Module\s*=\s*typeof Module\s*!==?\s*["']undefined["']\s*\?\s*Module\s*:\s*\{\};?/;
const match = firstStatement.exec(glue);
if (!match) throw new Error('emscripten glue has no `var Module = typeof Module ...` line');
if (glue.indexOf('var Module') !== match.index) {
  throw new Error("the glue's first `var Module` is not its Module statement");
}
const hook = [
  '/* lmtab: emscripten 3.1.6 starts pthreads from a separate wllama.worker.js; serve it from a Blob. */',
  "if (Module['locateFile'] && typeof Blob !== 'undefined') {",
  `  var lmtabPthreadWorkerUrl = URL.createObjectURL(new Blob([${JSON.stringify(pthreadWorker)}], { type: 'text/javascript' }));`,
  "  var lmtabLocate = Module['locateFile'];",
  "  Module['locateFile'] = function (name, prefix) { return /\\.worker\\.js$/.test(name) ? lmtabPthreadWorkerUrl : lmtabLocate(name, prefix); };",
  '}',
].join('\n');
const end = match.index + match[0].length;
const mediaMarker = mediaMarkerFor(wasm);
const outGlue = withUnsignedResults(
  withEmptyPoolStart(
    withMediaMarker(`${glue.slice(0, end)}\n${hook}\n${glue.slice(end)}`, mediaMarker),
  ),
);

mkdirSync(outDir, { recursive: true });
const files = { 'lmtab-cpu.js': Buffer.from(outGlue), 'lmtab-cpu.wasm': wasm };
const manifest = {
  description:
    "lmtab's CPU WebAssembly build: llama.cpp with ggml's wasm SIMD kernels + wllama's C++ glue (npm run build:wasm)",
  llamaCpp: {
    source: `npm node-llama-cpp@${sourceEnv.NODE_LLAMA_CPP_VERSION} llama/gitRelease.bundle`,
    commit: sourceEnv.LLAMA_CPP_COMMIT,
    patches: patchesDigest(llamaCppPatches),
  },
  glue: `npm @wllama/wllama@${sourceEnv.WLLAMA_GLUE_VERSION} cpp/ (speaking ${sourceEnv.WLLAMA_VERSION} wire format) + wasm/cpp-patches.mjs + wasm/shim/server-decision.h`,
  emscripten: emscriptenVersion,
  cmake: [
    '-DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm',
    '-DCMAKE_BUILD_TYPE=Release',
    'wasm/CMakeLists.txt',
  ],
  compileFlags: ['-O3', '-msimd128', '-pthread', '-fexceptions', '-DNDEBUG', '-frtti'],
  linkFlags: [
    '-sUSE_PTHREADS=1',
    '-sASYNCIFY=1',
    '-sALLOW_MEMORY_GROWTH=1',
    '-sMAXIMUM_MEMORY=4096MB',
    '-fexceptions',
    '-sBINARYEN_EXTRA_PASSES=--one-caller-inline-max-function-size=1000',
  ],
  features: {
    memory: 'wasm32',
    simd128: true,
    threads: true,
    exceptions: 'javascript',
    asyncify: true,
    webgpu: false,
  },
  mediaMarker,
  simdOpcodes: countSimdOpcodes(wasm),
  files: Object.fromEntries(
    Object.entries(files).map(([name, bytes]) => [
      name,
      { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
    ]),
  ),
};
for (const [name, bytes] of Object.entries(files)) writeFileSync(join(outDir, name), bytes);
writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${outDir}: ${JSON.stringify(manifest.simdOpcodes)}`);
