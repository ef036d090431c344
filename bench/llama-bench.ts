import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { summarize, type Figure } from './stats.js';

const run = promisify(execFile);

/** What `bench/build-native.sh` recorded about the native reference it built. */
export interface NativeBuildInfo {
  /** Where the llama.cpp sources came from (the npm package and version). */
  source: string;
  /** llama.cpp commit of those sources. */
  commit: string;
  cpu: string;
  cores: number;
  /** x86 features from /proc/cpuinfo that ggml's CPU kernels use. */
  cpuFeatures: string[];
  compiler: string;
  flags: string;
}

/** llama-bench's figures for one model and thread count. */
export interface LlamaBenchFigures {
  promptTokS?: Figure;
  decodeTokS?: Figure;
  promptTokens: number;
  decodeTokens: number;
  /** Peak resident memory of the llama-bench process, MiB (`/usr/bin/time`'s maximum RSS). */
  peakMemoryMiB?: number;
}

/** One test of `llama-bench -o json`. */
interface LlamaBenchTest {
  n_prompt: number;
  n_gen: number;
  /** Tokens already in the context when the test starts (`-d`). */
  n_depth?: number;
  samples_ts: number[];
}

/** Paths of the native reference under `bench/.cache/native`. */
export function nativePaths(root: string) {
  const dir = join(root, 'bench/.cache/native');
  return {
    script: join(root, 'bench/build-native.sh'),
    binary: join(dir, 'build/bin/llama-bench'),
    quantize: join(dir, 'build/bin/llama-quantize'),
    embedding: join(dir, 'build/bin/llama-embedding'),
    info: join(dir, 'info.json'),
  };
}

/**
 * Builds native llama.cpp's llama-bench from source (`bench/build-native.sh`: the same llama.cpp
 * as lmtab's CPU build, `-march=native`) unless it is built already, and says what was built.
 */
export async function ensureNativeBuild(
  root: string,
  log: (line: string) => void,
): Promise<NativeBuildInfo> {
  const paths = nativePaths(root);
  const built = [paths.binary, paths.quantize, paths.embedding, paths.info].every(existsSync);
  if (!built) {
    log(
      'building native llama.cpp (llama-bench, llama-quantize, llama-embedding; -march=native): minutes',
    );
    await run('bash', [paths.script], { cwd: root, maxBuffer: 1 << 24 });
  }
  return JSON.parse(await readFile(paths.info, 'utf8')) as NativeBuildInfo;
}

/**
 * Times native llama.cpp with its own llama-bench (`-p prompt -n decode -d 0,prompt -r runs -t
 * threads`): the honest reference, every thread working. lmtab's decode figure is the 128 tokens
 * after its 512-token prompt, so the native decode figure is taken at the same depth (`tg128 @
 * d512`), and the prompt figure on an empty context (`pp512`), as lmtab's.
 */
export async function runLlamaBench(
  root: string,
  options: {
    model: string;
    threads: number;
    promptTokens: number;
    decodeTokens: number;
    runs: number;
  },
): Promise<LlamaBenchFigures> {
  const { binary } = nativePaths(root);
  const args = [
    '-m',
    options.model,
    '-p',
    String(options.promptTokens),
    '-n',
    String(options.decodeTokens),
    '-d',
    `0,${options.promptTokens}`,
    '-r',
    String(options.runs),
    '-t',
    String(options.threads),
    '-o',
    'json',
  ];
  // GNU time reports the maximum resident set size on stderr (`-f %M`, KiB).
  const timed = existsSync('/usr/bin/time');
  const { stdout, stderr } = timed
    ? await run('/usr/bin/time', ['-f', 'LMTAB_MAX_RSS_KIB %M', binary, ...args], {
        maxBuffer: 1 << 24,
      })
    : await run(binary, args, { maxBuffer: 1 << 24 });
  const tests = JSON.parse(stdout) as LlamaBenchTest[];
  const prompt = tests.find((t) => t.n_prompt > 0 && t.n_gen === 0 && !t.n_depth);
  const decode = tests.find(
    (t) => t.n_gen > 0 && t.n_prompt === 0 && t.n_depth === options.promptTokens,
  );
  const rss = /LMTAB_MAX_RSS_KIB (\d+)/.exec(stderr);
  return {
    promptTokS: summarize(prompt?.samples_ts ?? []),
    decodeTokS: summarize(decode?.samples_ts ?? []),
    promptTokens: options.promptTokens,
    decodeTokens: options.decodeTokens,
    peakMemoryMiB: rss ? Number(rss[1]) / 1024 : undefined,
  };
}

/**
 * Embeds texts with native llama.cpp's `llama-embedding` (one text per line, batched by the tool,
 * `-t threads`), vectors written as plain text and discarded.
 */
export async function runLlamaEmbedding(
  root: string,
  options: { model: string; texts: string[]; threads: number },
): Promise<void> {
  const { embedding } = nativePaths(root);
  await run(
    embedding,
    [
      '-m',
      options.model,
      '-p',
      options.texts.join('\n'),
      '-t',
      String(options.threads),
      '-c',
      '512',
      '--embd-output-format',
      'raw',
      '--no-warmup',
    ],
    { maxBuffer: 1 << 26 },
  );
}
