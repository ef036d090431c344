import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeGguf, writeGgufFile } from '../tests/support/gguf-writer.js';
import {
  buildLfm2Vocabulary,
  ensureFixtures,
  lfm2Configs,
  lfm2Model,
  writeBenchModel,
} from '../tests/support/lfm2-fixtures.js';
import type { BenchSize } from './workload.js';

/** A generated model file the benchmark runs. */
export interface BenchModelFile {
  size: BenchSize;
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
    if (size === 'tiny') {
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
      id,
      path,
      bytes: info.size,
      writtenAt: info.mtimeMs,
      words: vocabularyWords(lfm2Configs[size].vocab),
    });
  }
  return files;
}

/** The tiny vision model and its projector (the test fixtures), for the image check. */
export async function visionFixture(dir: string): Promise<{ model: string; projector: string }> {
  const paths = await ensureFixtures(dir);
  return { model: paths.lfm2Vl, projector: paths.mmproj };
}
