import { execFile } from 'node:child_process';
import { readFile, rename, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { encodeGguf, writeGgufFile } from '../tests/support/gguf-writer.js';
import {
  buildLfm2Vocabulary,
  ensureFixtures,
  lfm2Configs,
  lfm2Model,
  lfm2MoeConfigs,
  lfm2MoeModel,
  writeBenchModel,
  writeModelFile,
} from '../tests/support/lfm2-fixtures.js';
import type { BenchQuant, BenchSize } from './workload.js';

/** A generated model file the benchmark runs. */
export interface BenchModelFile {
  size: BenchSize;
  /** Weight type; the tiny model is F16 and says Q8_0 here (it is never compared). */
  quant: BenchQuant;
  /** Its id in the browser's model store. */
  id: string;
  path: string;
  bytes: number;
  /** Last write, epoch ms: a store copy older than this is stale. */
  writtenAt: number;
  /** Its one-token words (` bcf`), from which prompts are made. */
  words: string[];
}

/** The one-token words of an `lfm2` vocabulary of `vocab` tokens with `words` fillers. */
export function vocabularyWords(vocab: number): string[] {
  return buildLfm2Vocabulary(vocab, 'words')
    .tokens.filter((token) => /^Ġ[a-z]+$/.test(token))
    .map((token) => ` ${token.slice(1)}`);
}

/**
 * Writes the benchmark's models into `dir` unless already there: LFM2-shaped Q8_0 files (the tiny
 * one in F16 for quick runs) with random weights and a vocabulary of printable one-token words.
 */
export async function prepareModels(
  sizes: BenchSize[],
  dir: string,
  log: (line: string) => void,
): Promise<BenchModelFile[]> {
  const files: BenchModelFile[] = [];
  for (const size of sizes) {
    const id = size === 'tiny' ? 'bench-lfm2-tiny-f16' : `bench-lfm2-${size.toLowerCase()}-q8_0`;
    const path = join(dir, `${id}.gguf`);
    const started = Date.now();
    if (size === '8B-A1B') {
      // The mixture of experts: 8.8 GB in Q8_0, from which llama-quantize makes the Q4_K_M file.
      const model = lfm2MoeModel({ size, type: 'Q8_0', fillers: 'words', name: id });
      const written = await writeModelFile(path, model);
      if (written.written) log(`wrote ${path} in ${Math.round((Date.now() - started) / 1000)} s`);
    } else if (size === 'tiny') {
      const model = lfm2Model({ fillers: 'words', name: id });
      const expected = encodeGguf(model);
      const current = await readFile(path).catch(() => undefined);
      if (!current || !Buffer.from(expected).equals(current)) await writeGgufFile(path, model);
    } else {
      const written = await writeBenchModel(path, { size, type: 'Q8_0', fillers: 'words' });
      if (written.written) log(`wrote ${path} in ${Math.round((Date.now() - started) / 1000)} s`);
    }
    const info = await stat(path);
    files.push({
      size,
      quant: 'Q8_0',
      id,
      path,
      bytes: info.size,
      writtenAt: info.mtimeMs,
      words: vocabularyWords(
        size === '8B-A1B' ? lfm2MoeConfigs[size].base.vocab : lfm2Configs[size].vocab,
      ),
    });
  }
  return files;
}

/** The tiny vision model and its projector (the test fixtures), for the image check. */
export async function visionFixture(dir: string): Promise<{ model: string; projector: string }> {
  const paths = await ensureFixtures(dir);
  return { model: paths.lfm2Vl, projector: paths.mmproj };
}

/**
 * Writes a Q4_K_M copy of a Q8_0 bench model with native llama.cpp's `llama-quantize` (built by
 * `bench/build-native.sh` from the same sources), unless one newer than the Q8_0 file is there.
 * llama-quantize applies its own Q4_K_M mix (Q4_K with Q6_K for some tensors), as for a real model.
 */
export async function quantizeQ4KM(
  q8: BenchModelFile,
  quantizeBinary: string,
  log: (line: string) => void,
): Promise<BenchModelFile> {
  const id = q8.id.replace(/-q8_0$/, '-q4_k_m');
  const path = q8.path.replace(/-q8_0\.gguf$/, '-q4_k_m.gguf');
  let info = await stat(path).catch(() => undefined);
  if (!info || info.mtimeMs < q8.writtenAt) {
    log(`quantizing ${q8.id} to Q4_K_M`);
    await promisify(execFile)(
      quantizeBinary,
      ['--allow-requantize', q8.path, `${path}.part`, 'Q4_K_M'],
      { maxBuffer: 1 << 26 },
    );
    await rename(`${path}.part`, path);
    info = await stat(path);
  }
  return { ...q8, quant: 'Q4_K_M', id, path, bytes: info.size, writtenAt: info.mtimeMs };
}
