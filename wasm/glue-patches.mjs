// Edits finish-build.mjs makes to emscripten 3.1.6's glue, each checked to apply exactly once.
//
// 1. One thread: emscripten 3.1.6 removes its "wasm-instantiate" run dependency only when the last
//    pooled pthread worker has loaded the module; wllama starts a one-thread load with a pool of 0,
//    so the count never reaches zero and the module never starts (wllama waits forever). Later
//    emscripten releases check for an empty pool; the edit adds that check.
//
// 4. Addresses past 2 GiB (withUnsignedResults, below), for models whose weights pass 2 GiB.
//
// 2. The media marker of lmtab's CPU build: the text llama.cpp's server code puts in a prompt where an
// image goes (`get_media_marker()`, normally `<__media_RANDOM__>`, or the `LLAMA_MEDIA_MARKER`
// environment variable when set).
//
// In this build wllama's glue reports an empty marker in its load result (the server code itself
// has one), so wllama's JavaScript cannot place images ("Media marker is undefined"). The build
// therefore pins the marker through emscripten's environment, and the engine hands the same marker
// to wllama after the load (src/engine/builds/cpu-build.ts). It is derived from the wasm's bytes: a
// rebuild of the same sources gives the same marker, and text a user types will not contain it.
import { createHash } from 'node:crypto';

/** The marker for a build whose wasm is `wasm`. */
export function mediaMarkerFor(wasm) {
  return `<__media_lmtab_${createHash('sha256').update(wasm).digest('hex').slice(0, 24)}__>`;
}

/** The glue with emscripten's initial environment carrying `LLAMA_MEDIA_MARKER`. */
export function withMediaMarker(glue, marker) {
  return replaceOnce(
    glue,
    'var ENV={};',
    `var ENV={LLAMA_MEDIA_MARKER:${JSON.stringify(marker)}};`,
  );
}

/** The glue with emscripten 3.1.6's start fixed for an empty pthread pool (one thread). */
export function withEmptyPoolStart(glue) {
  const counted = 'var numWorkersToLoad=PThread.unusedWorkers.length;';
  const fixed = `${counted}if(!numWorkersToLoad)removeRunDependency("wasm-instantiate");`;
  if (glue.includes(fixed)) throw new Error('the glue already has the empty-pool start');
  return replaceOnce(glue, counted, fixed);
}

/**
 * The glue with ccall's (and cwrap's) `number` results read as unsigned. wllama calls three
 * functions with a `number` result, all returning addresses (`wllama_malloc`, `wllama_action`);
 * emscripten 3.1.6 hands them over as signed 32-bit numbers, so an address past 2 GiB, where the
 * request and result buffers land once weights over 2 GiB are loaded, arrived negative. cwrap
 * returned `wllama_malloc` (numbers in, a number out) as the bare export, which no conversion
 * reaches: a request buffer past 2 GiB failed "Start offset -1388059392 is outside the bounds".
 */
export function withUnsignedResults(glue) {
  const converted = replaceOnce(
    glue,
    'if(returnType==="boolean")return Boolean(ret);return ret}',
    'if(returnType==="boolean")return Boolean(ret);if(returnType==="number")return ret>>>0;return ret}',
  );
  // cwrap hands back the bare export for all-number signatures (wllama_malloc's), skipping ccall's
  // conversion: such a wrapper goes through ccall too.
  return replaceOnce(
    converted,
    'var numericRet=returnType!=="string";',
    'var numericRet=returnType!=="string"&&returnType!=="number";',
  );
}

function replaceOnce(text, from, to) {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) {
    throw new Error(`the emscripten glue does not have exactly one \`${from}\``);
  }
  return `${text.slice(0, at)}${to}${text.slice(at + from.length)}`;
}

// 3. lmtab's relaxed-SIMD kernels (wasm/kernels/): the glue instantiates lmtab-kernels.wasm on the
//    engine's memory in every thread (the wllama worker and each pthread worker has its own
//    instance and function table) and puts its functions in the table slots of ggml's
//    (wasm/kernel-table.mjs). Where the browser lacks relaxed SIMD the module does not validate and
//    ggml's own kernels stay. The main thread logs which ran; the engine reads that line.
const kernelsBegin = '/* lmtab kernels: begin */';
const kernelsEnd = '/* lmtab kernels: end */';
const tableAssignment = /wasmTable=Module\["asm"\]\["\w+"\];/g;

/** The log line of a load whose engine runs lmtab's kernels, and of one that keeps ggml's. */
export const kernelLogLines = {
  relaxed: 'lmtab-kernels: relaxed SIMD dot products for Q8_0, Q4_K and Q6_K, SIMD Q8_0 to floats',
  ggml: "lmtab-kernels: this browser has no relaxed SIMD; ggml's own dot products run",
};

/**
 * The glue installing `kernelsWasm`'s exports in the table `slots` (export name -> slot) at
 * instantiation. `tiles` (export name -> address of its type_traits_cpu entry in the engine's
 * memory) names the dot products that also take tiles of 4 rows by 4 columns and of 2 by 2: the
 * main thread sets their entries' nrows (an int64 at +16, after the vec_dot slot at +4) from 1 to
 * 4, once it has checked that the entry holds that slot and nrows 1. A glue that has kernels already
 * gets them replaced.
 */
export function withKernels(glue, kernelsWasm, slots, tiles = {}) {
  const plain = withoutKernels(glue);
  const helper = [
    kernelsBegin,
    `var lmtabKernelSlots=${JSON.stringify(slots)};`,
    `var lmtabKernelTiles=${JSON.stringify(tiles)};`,
    `var lmtabKernelWasm="${Buffer.from(kernelsWasm).toString('base64')}";`,
    'function lmtabUseKernels(table){',
    'var bytes=Uint8Array.from(atob(lmtabKernelWasm),function(c){return c.charCodeAt(0)});',
    `if(!WebAssembly.validate(bytes)){if(!ENVIRONMENT_IS_PTHREAD)err(${JSON.stringify(kernelLogLines.ggml)});return}`,
    'var kernels=new WebAssembly.Instance(new WebAssembly.Module(bytes),{env:{memory:wasmMemory}}).exports;',
    'for(var name in lmtabKernelSlots)table.set(lmtabKernelSlots[name],kernels[name]);',
    'if(ENVIRONMENT_IS_PTHREAD)return;',
    'var words=new Int32Array(wasmMemory.buffer);',
    'for(var name in lmtabKernelTiles){var at=lmtabKernelTiles[name]>>2;',
    'if(words[at+1]===lmtabKernelSlots[name]&&words[at+4]===1&&words[at+5]===0)words[at+4]=4}',
    `err(${JSON.stringify(kernelLogLines.relaxed)})}`,
    kernelsEnd,
  ].join('');
  const withHelper = replaceOnce(
    plain,
    'function createWasm(){',
    `${helper}function createWasm(){`,
  );
  const assignments = withHelper.match(tableAssignment) ?? [];
  if (assignments.length !== 1) {
    throw new Error(
      `the emscripten glue has ${assignments.length} wasmTable assignments, expected 1`,
    );
  }
  return replaceOnce(withHelper, assignments[0], `${assignments[0]}lmtabUseKernels(wasmTable);`);
}

/** The glue without lmtab's kernels (as finish-build.mjs writes it). */
export function withoutKernels(glue) {
  const begin = glue.indexOf(kernelsBegin);
  if (begin < 0) return glue;
  const end = glue.indexOf(kernelsEnd, begin) + kernelsEnd.length;
  return `${glue.slice(0, begin)}${glue.slice(end)}`.replace('lmtabUseKernels(wasmTable);', '');
}
