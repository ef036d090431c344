import type { HubFile } from './hub-client.js';
import {
  DEFAULT_QUANTIZATION,
  bitsPerWeight,
  compareQuantizations,
  nearestQuantization,
  parseGgufFileName,
  quantizationNote,
} from './quantization.js';

/** One way to download a repository's model: a quantization level and the files it takes. */
export interface GgufChoice {
  /** Level in upper case (`Q4_K_M`, `UD-Q4_K_XL`); for a file name without one, its stem. */
  quantization: string;
  /** The model file, or the split parts in part order. */
  files: HubFile[];
  /** Bytes of the model files (the projector not counted). */
  size: number;
  /** Bytes of everything downloaded for this choice, projector included. */
  downloadSize: number;
  /** True on the one choice offered by default: Q4_K_M, or the level nearest to it. */
  recommended: boolean;
  /** What the level trades, for users. */
  note: string;
  /** The vision projector downloaded along with the model, for a vision repository. */
  projector?: HubFile;
}

/** Everything a repository offers, smallest choice first. */
export interface GgufChoices {
  choices: GgufChoice[];
  /** Every vision projector (`mmproj-*.gguf`) in the repository. */
  projectors: HubFile[];
}

interface Series {
  quantization: string;
  files: HubFile[];
  depth: number;
}

// llama.cpp writes an importance matrix as `*.imatrix.gguf`; it is not a model.
const notAModel = /(?:^|[-._])imatrix(?:$|[-._])/i;
const projectorPreference = ['F16', 'BF16', 'F32', 'Q8_0'];

/** Builds a repository's choices from its file listing: one per level, with projector paired. */
export function buildGgufChoices(files: readonly HubFile[]): GgufChoices {
  const projectors: HubFile[] = [];
  const groups = new Map<string, { files: (HubFile & { part: number })[]; parts: number }>();
  const labels = new Map<string, string>();
  for (const file of files) {
    if (!file.path.toLowerCase().endsWith('.gguf')) continue;
    const name = parseGgufFileName(file.path);
    if (name.projector) {
      projectors.push(file);
      continue;
    }
    const baseName = file.path.split('/').at(-1) ?? file.path;
    if (notAModel.test(baseName)) continue;
    const folder = file.path.slice(0, file.path.length - baseName.length);
    const key = `${folder}${name.stem}#${name.parts ?? 1}`;
    const group = groups.get(key) ?? { files: [], parts: name.parts ?? 1 };
    group.files.push({ ...file, part: name.part ?? 1 });
    groups.set(key, group);
    labels.set(key, name.quantization ?? name.stem);
  }

  const byLevel = new Map<string, Series>();
  for (const [key, group] of groups) {
    const ordered = [...group.files].sort((a, b) => a.part - b.part);
    // A split set with a part missing cannot load; leave it out rather than offer it.
    const complete =
      ordered.length === group.parts && ordered.every((file, index) => file.part === index + 1);
    if (!complete) continue;
    const quantization = labels.get(key) ?? key;
    const series: Series = {
      quantization,
      files: ordered.map(({ path, size, sha256 }) => withoutUndefined({ path, size, sha256 })),
      depth: ordered[0]?.path.split('/').length ?? 0,
    };
    const current = byLevel.get(quantization.toUpperCase());
    if (current === undefined || isPreferred(series, current)) {
      byLevel.set(quantization.toUpperCase(), series);
    }
  }

  const levels = [...byLevel.values()].sort(
    (a, b) =>
      compareQuantizations(a.quantization, b.quantization) ||
      totalSize(a.files) - totalSize(b.files),
  );
  const recommended =
    levels.find((series) => series.quantization === DEFAULT_QUANTIZATION)?.quantization ??
    nearestQuantization(
      DEFAULT_QUANTIZATION,
      levels.map((series) => series.quantization),
    ) ??
    levels[0]?.quantization;

  const choices = levels.map((series): GgufChoice => {
    const projector = pickProjector(projectors, series.quantization);
    const size = totalSize(series.files);
    return withoutUndefined({
      quantization: series.quantization,
      files: series.files,
      size,
      downloadSize: size + (projector?.size ?? 0),
      recommended: series.quantization === recommended,
      note: quantizationNote(series.quantization),
      projector,
    });
  });
  return { choices, projectors };
}

/**
 * The projector to download with a model of the given level: the one of the same level, else
 * F16 (projectors lose the most from quantization), BF16, F32, Q8_0, else the largest.
 */
export function pickProjector(
  projectors: readonly HubFile[],
  quantization: string,
): HubFile | undefined {
  const level = (file: HubFile) => parseGgufFileName(file.path).quantization;
  const wanted = quantization.toUpperCase().replace(/^UD-/, '');
  const same = projectors.find((file) => level(file) === wanted);
  if (same !== undefined) return same;
  for (const preferred of projectorPreference) {
    const found = projectors.find((file) => level(file) === preferred);
    if (found !== undefined) return found;
  }
  return [...projectors].sort(
    (a, b) => (bitsPerWeight(level(b) ?? '') ?? 0) - (bitsPerWeight(level(a) ?? '') ?? 0),
  )[0];
}

function isPreferred(candidate: Series, current: Series): boolean {
  // Two files of one level (a second model in the repo, a copy in a folder): keep the one
  // nearest the repository root, then the first by path, so the pick is stable.
  if (candidate.depth !== current.depth) return candidate.depth < current.depth;
  return (candidate.files[0]?.path ?? '') < (current.files[0]?.path ?? '');
}

function totalSize(files: readonly HubFile[]): number {
  return files.reduce((sum, file) => sum + file.size, 0);
}

function withoutUndefined<T extends object>(value: T): T {
  // Keeps objects comparable with toEqual and small on the wire (no `sha256: undefined`).
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
