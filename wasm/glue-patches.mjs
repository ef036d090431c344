// Edits finish-build.mjs makes to emscripten 3.1.6's glue, each checked to apply exactly once.
//
// 1. One thread: emscripten 3.1.6 removes its "wasm-instantiate" run dependency only when the last
//    pooled pthread worker has loaded the module; wllama starts a one-thread load with a pool of 0,
//    so the count never reaches zero and the module never starts (wllama waits forever). Later
//    emscripten releases check for an empty pool; the edit adds that check.
//
// 2. The media marker of lmtab's CPU build: the text llama.cpp's server code puts in a prompt where an
// image goes (`get_media_marker()`, normally `<__media_RANDOM__>`, or the `LLAMA_MEDIA_MARKER`
// environment variable when set).
//
// In this build wllama's glue reports an empty marker in its load result (the server code itself
// has one), so wllama's JavaScript cannot place images ("Media marker is undefined"). The build
// therefore pins the marker through emscripten's environment, and the engine hands the same marker
// to wllama after the load (src/engine/cpu-build.ts). It is derived from the wasm's bytes: a
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

function replaceOnce(text, from, to) {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) {
    throw new Error(`the emscripten glue does not have exactly one \`${from}\``);
  }
  return `${text.slice(0, at)}${to}${text.slice(at + from.length)}`;
}
