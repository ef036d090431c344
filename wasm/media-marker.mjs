// The media marker of lmtab's CPU build: the text llama.cpp's server code puts in a prompt where an
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
  const empty = 'var ENV={};';
  const at = glue.indexOf(empty);
  if (at < 0 || glue.indexOf(empty, at + 1) >= 0) {
    throw new Error('the emscripten glue does not have exactly one `var ENV={};`');
  }
  const env = `var ENV={LLAMA_MEDIA_MARKER:${JSON.stringify(marker)}};`;
  return `${glue.slice(0, at)}${env}${glue.slice(at + empty.length)}`;
}
