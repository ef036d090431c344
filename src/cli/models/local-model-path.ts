import { isAbsolute, resolve } from 'node:path';

/** Options of {@link localModelPath}. */
export interface LocalModelPathOptions {
  /** Folder a relative path is read from. */
  cwd: string;
  /** Home folder, for `~/`. */
  home: string;
  /** Whether a file exists at an absolute path. */
  isFile: (path: string) => boolean;
}

/**
 * The absolute path a model argument (or FROM) names when it names a local file: anything that
 * looks like a path (`./`, `../`, `/`, `~/`, a drive letter, a `.gguf` ending) or an existing file;
 * undefined for a model name or hub reference.
 */
export function localModelPath(ref: string, options: LocalModelPathOptions): string | undefined {
  const expanded = /^~[\\/]/.test(ref) ? resolve(options.home, ref.slice(2)) : ref;
  const absolute = isAbsolute(expanded) ? expanded : resolve(options.cwd, expanded);
  const looksLikePath =
    /^(?:\.{1,2}[\\/]|[\\/]|~[\\/]|[A-Za-z]:[\\/])/.test(ref) || /\.gguf$/i.test(ref);
  if (looksLikePath) return absolute;
  // `hf.co/ORG/REPO` never names a file here unless one really is there.
  return options.isFile(absolute) ? absolute : undefined;
}

/** The model name `run ./FILE.gguf` stores a file under: `LFM2-350M-Q4_K_M.gguf` -> `lfm2-350m-q4_k_m`. */
export function modelNameFromFile(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base
    .replace(/\.gguf$/i, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-');
}
