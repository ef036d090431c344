// Edits to wllama 3.8.1's C++ glue (its npm package's cpp/) that lmtab's CPU build compiles, each
// checked to apply exactly once. Usage: node wasm/cpp-patches.mjs FROM_DIR TO_DIR (copies, then edits).
//
// 1. Results as JSON that is always valid UTF-8. The glue serializes each result with dump(),
//    which throws on a string that is not UTF-8 (json type_error 316). A token's text can be a
//    piece of a character (byte-level vocabularies split many characters), and logprobs name
//    tokens, candidates that were not drawn included: such a request failed as "invalid UTF-8 byte
//    at index 1". llama-server sends its results through safe_json_to_str (dump_safe, which
//    replaces such bytes); so does the glue now. The raw bytes stay in each entry's `bytes`.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const cppPatches = [
  {
    file: 'wllama-context.h',
    from: 'res.data_json.value = result ? data_json.dump() : "";',
    to: 'res.data_json.value = result ? safe_json_to_str(data_json) : "";',
  },
];

/** `source` with `patch` applied, or an error when its text is not there exactly once. */
export function applyCppPatch(source, patch) {
  const at = source.indexOf(patch.from);
  if (at < 0 || source.indexOf(patch.from, at + 1) >= 0) {
    throw new Error(`${patch.file} does not have exactly one \`${patch.from}\``);
  }
  return `${source.slice(0, at)}${patch.to}${source.slice(at + patch.from.length)}`;
}

const [from, to] = process.argv.slice(2);
if (from && to) {
  cpSync(from, to, { recursive: true });
  for (const patch of cppPatches) {
    const path = join(to, patch.file);
    writeFileSync(path, applyCppPatch(readFileSync(path, 'utf8'), patch));
  }
  console.log(`patched wllama's glue into ${to}`);
}
