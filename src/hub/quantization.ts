/** The levels offered to users first, smallest first. */
export const COMMON_QUANTIZATIONS = [
  'Q2_K',
  'Q3_K_M',
  'Q4_0',
  'Q4_K_M',
  'Q5_K_M',
  'Q6_K',
  'Q8_0',
  'F16',
] as const;

/** The level picked when a model reference names none. */
export const DEFAULT_QUANTIZATION = 'Q4_K_M';

/** What a GGUF file's name says about it. */
export interface GgufFileName {
  /** Quantization level in upper case (`Q4_K_M`, `IQ4_XS`, `UD-Q4_K_XL`), when the name has one. */
  quantization?: string;
  /** File name without folder, `.gguf` and split suffix: the key that groups split parts. */
  stem: string;
  /** 1-based part number of a split file (`-00002-of-00003.gguf` gives 2). */
  part?: number;
  /** Number of parts of a split file. */
  parts?: number;
  /** Whether the file is a vision projector (`mmproj-*.gguf`). */
  projector: boolean;
}

const levelPattern = [
  'IQ[1-4]_(?:XXS|XS|NL|S|M)',
  'TQ[12]_0',
  'Q[1-8]_K(?:_(?:XXS|XS|S|M|L|XL))?',
  'Q4_1_SOME_F16',
  'Q[1-8]_[01](?:_[48]_[48])?',
  'MXFP4(?:_MOE)?',
  'NVFP4',
  'BF16',
  'FP?16',
  'FP?32',
  'F64',
].join('|');
// Levels stand between separators, so `7B-F16` matches while `QF16X` does not; the last one wins
// because names like `Model-Q8_0-Q4_K_M` put the file's own level at the end.
const levelInName = new RegExp(`(?<=^|[-._ ])(?:UD-)?(?:${levelPattern})(?=$|[-._ ])`, 'g');
const wholeLevel = new RegExp(`^(?:UD-)?(?:${levelPattern})$`);
const splitSuffix = /-(\d{1,5})-of-(\d{1,5})$/i;
const projectorName = /(?:^|[-._])mmproj(?:$|[-._])/i;

/** Parses a GGUF path or file name: quantization level, split part, vision projector or not. */
export function parseGgufFileName(path: string): GgufFileName {
  const segments = path.split('/');
  const baseName = segments.at(-1) ?? path;
  let stem = baseName.replace(/\.gguf$/i, '');
  const split = splitSuffix.exec(stem);
  let part: number | undefined;
  let parts: number | undefined;
  if (split) {
    part = Number(split[1]);
    parts = Number(split[2]);
    stem = stem.slice(0, split.index);
  }
  // Repos with many split levels put each in a folder (`Q8_0/Model-Q8_0-00001-of-00002.gguf`),
  // sometimes with unlabelled file names: fall back to the folders, innermost first.
  let quantization = lastLevel(stem);
  for (let i = segments.length - 2; quantization === undefined && i >= 0; i--) {
    quantization = lastLevel(segments[i] ?? '');
  }
  return { quantization, stem, part, parts, projector: projectorName.test(baseName) };
}

/** The quantization level of a GGUF file name, in upper case, when it has one. */
export function parseQuantization(path: string): string | undefined {
  return parseGgufFileName(path).quantization;
}

/** Upper-cases a level as typed by a user (`q4_k_m` gives `Q4_K_M`), mapping `FP16` to `F16`. */
export function normalizeQuantization(level: string): string {
  const upper = level.trim().toUpperCase();
  return wholeLevel.test(upper) ? canonicalLevel(upper) : upper;
}

/** Whether `level` is a quantization level this module knows how to place. */
export function isKnownQuantization(level: string): boolean {
  return bitsPerWeight(level) !== undefined;
}

// Approximate bits per weight of a whole file; only used to order levels and measure how near
// two levels are. K-quant and legacy values come from llama.cpp's quantize table (file sizes of
// Llama-3-8B), IQ and TQ values from the same table's per-type figures; XL and L variants (unsloth,
// bartowski) keep some tensors at 8 bits and sit a little above their base level.
const bits: Readonly<Record<string, number>> = {
  Q1_0: 1.13,
  IQ1_S: 1.56,
  TQ1_0: 1.69,
  IQ1_M: 1.75,
  IQ2_XXS: 2.06,
  TQ2_0: 2.07,
  IQ2_XS: 2.31,
  IQ2_S: 2.5,
  IQ2_M: 2.7,
  IQ3_XXS: 3.06,
  Q2_K_S: 3.1,
  Q2_K: 3.17,
  IQ3_XS: 3.3,
  Q2_K_L: 3.4,
  Q2_K_XL: 3.45,
  IQ3_S: 3.44,
  Q3_K_S: 3.65,
  IQ3_M: 3.66,
  Q3_K: 4.0,
  Q3_K_M: 4.0,
  IQ4_XS: 4.25,
  MXFP4_MOE: 4.26,
  Q3_K_L: 4.31,
  Q3_K_XL: 4.4,
  IQ4_NL: 4.5,
  NVFP4: 4.52,
  Q4_0: 4.64,
  Q4_0_4_4: 4.64,
  Q4_0_4_8: 4.64,
  Q4_0_8_8: 4.64,
  Q4_K_S: 4.67,
  Q4_K: 4.9,
  Q4_K_M: 4.9,
  Q4_K_L: 5.1,
  Q4_K_XL: 5.1,
  Q4_1: 5.11,
  Q4_1_SOME_F16: 5.2,
  Q5_0: 5.57,
  Q5_K_S: 5.57,
  Q5_K: 5.7,
  Q5_K_M: 5.7,
  Q5_K_L: 5.9,
  Q5_K_XL: 5.9,
  Q5_1: 6.04,
  Q6_K: 6.57,
  Q6_K_L: 6.9,
  Q6_K_XL: 7.0,
  Q8_0: 8.51,
  Q8_K_XL: 9.5,
  F16: 16,
  BF16: 16,
  F32: 32,
  F64: 64,
};

/** Approximate bits per weight of a level (ordering and distance only); undefined when unknown. */
export function bitsPerWeight(level: string): number | undefined {
  const upper = level.toUpperCase();
  const dynamic = upper.startsWith('UD-');
  const base = dynamic ? upper.slice(3) : upper;
  const known = bits[base];
  if (known !== undefined) return dynamic ? known + 0.05 : known;
  // A level this table does not list yet: place it by its leading bit count (`Q3_X` near 3.5).
  const shape = /^I?Q([1-8])_/.exec(base);
  return shape ? Number(shape[1]) + 0.5 : undefined;
}

/** Orders levels smallest first; unknown labels go last, alphabetically. */
export function compareQuantizations(a: string, b: string): number {
  const bitsA = bitsPerWeight(a) ?? Number.POSITIVE_INFINITY;
  const bitsB = bitsPerWeight(b) ?? Number.POSITIVE_INFINITY;
  if (bitsA !== bitsB) return bitsA - bitsB;
  return tieRank(a) - tieRank(b) || a.localeCompare(b);
}

/** The levels in the order shown to users: smallest first, each once. */
export function sortQuantizations(levels: Iterable<string>): string[] {
  return [...new Set(levels)].sort(compareQuantizations);
}

/**
 * The available level nearest to `wanted` by ratio of bits per weight; at equal distance the
 * larger one (better quality for a little more memory). Undefined when no level can be placed.
 */
export function nearestQuantization(
  wanted: string,
  available: Iterable<string>,
): string | undefined {
  const target = bitsPerWeight(wanted);
  if (target === undefined) return undefined;
  let best: string | undefined;
  let bestBits = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const level of sortQuantizations(available)) {
    const size = bitsPerWeight(level);
    if (size === undefined) continue;
    // Ratio, not difference: 5.7 bits is nearer to 4.9 than 4.0 is, as memory goes.
    const distance = Math.abs(Math.log(size / target));
    const nearer = distance < bestDistance - 1e-9;
    const asNearButLarger = Math.abs(distance - bestDistance) <= 1e-9 && size > bestBits + 1e-9;
    if (nearer || asNearButLarger) {
      best = level;
      bestBits = size;
      bestDistance = distance;
    }
  }
  return best;
}

const notes: Readonly<Record<string, string>> = {
  Q2_K: 'Smallest and fastest; answers are noticeably worse.',
  Q3_K_M: 'Small and fast; some loss of quality.',
  Q4_0: 'Fast 4-bit; a little below Q4_K_M in quality.',
  Q4_K_M: 'Recommended: fast and small with good quality.',
  Q5_K_M: 'Better quality than Q4; a little larger and slower.',
  Q6_K: 'Better quality, close to Q8_0; slower than Q4.',
  // Slower than Q4_K_M on lmtab's CPU build too, since its relaxed-SIMD K-quant kernels (bench/NOTES.md).
  Q8_0: 'Near-original quality; about twice the size of Q4 and slower.',
  F16: 'Unquantized 16-bit weights: largest and slowest.',
  BF16: 'Unquantized 16-bit weights: largest and slowest.',
  F32: 'Full 32-bit weights: meant for conversion, too large for a tab.',
};

/** A short note for users on what a level trades: Q4 is faster, Q6 and Q8 give better quality. */
export function quantizationNote(level: string): string {
  const upper = level.toUpperCase();
  const exact = notes[upper];
  if (exact !== undefined) return exact;
  const size = bitsPerWeight(upper);
  if (size === undefined) return 'Unknown quantization level.';
  let note: string;
  if (size < 3) note = 'Very small; noticeably lower quality.';
  else if (size < 4.4) note = 'Small and fast; some loss of quality.';
  else if (size < 5.3) note = '4-bit class: fast and small with good quality.';
  else if (size < 6.2) note = '5-bit class: better quality than Q4, a little slower.';
  else if (size < 12) note = 'Better quality (6 to 8 bits); larger and slower than Q4.';
  else note = 'Unquantized: largest and slowest.';
  if (/^(?:UD-)?IQ/.test(upper)) note += ' Importance-weighted: small for its quality.';
  if (upper.startsWith('UD-')) note += ' Unsloth dynamic mix.';
  return note;
}

function lastLevel(text: string): string | undefined {
  const found = text.toUpperCase().match(levelInName);
  const last = found?.at(-1);
  return last === undefined ? undefined : canonicalLevel(last);
}

function canonicalLevel(level: string): string {
  return level.replace(/(^|-)FP(16|32)$/, '$1F$2');
}

function tieRank(level: string): number {
  // F16 before BF16, and a plain level before its UD- twin, when sizes are equal.
  const index = (COMMON_QUANTIZATIONS as readonly string[]).indexOf(level.toUpperCase());
  return index === -1 ? COMMON_QUANTIZATIONS.length : index;
}
