import { basename } from 'node:path';

/**
 * The vision projector (`mmproj*.gguf`) to pair with a local model file, chosen among the names
 * in its folder: one whose name holds the model's (without its quantization), or the only one
 * when the folder holds no other model. Undefined when none fits, rather than a wrong guess.
 */
export function projectorFileFor(modelPath: string, names: readonly string[]): string | undefined {
  const model = basename(modelPath);
  const stem = model
    .replace(/\.gguf$/i, '')
    .replace(/[-_.](?:i?q\d[a-z0-9_]*|bf16|f16|f32)$/i, '')
    .toLowerCase();
  const ggufs = names.filter((n) => /\.gguf$/i.test(n) && n !== model);
  const projectors = ggufs.filter((n) => /^mmproj/i.test(n));
  const named = projectors.filter((n) => n.toLowerCase().includes(stem));
  if (named.length === 1) return named[0];
  const otherModels = ggufs.filter((n) => !/^mmproj/i.test(n));
  return projectors.length === 1 && otherModels.length === 0 ? projectors[0] : undefined;
}
