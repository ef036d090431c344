// The bench's embeddings row: inputs per second for 64 short texts through lmtab (the relay's
// /v1/embeddings, answered by the bench page's wllama engine) against native llama.cpp on the same
// GGUF. Kept apart from run-bench.ts so the native side can be pointed at another llama.cpp.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeGguf, writeGgufFile } from '../tests/support/gguf-writer.js';
import { smallBertConfig, tinyBertModel } from '../tests/support/embedding-fixtures.js';
import { runLlamaEmbedding } from './llama-bench.js';
import { summarize, type Figure } from './stats.js';

/** Inputs per request, as the issue asks. */
export const embeddingInputs = 64;

/** One figure of the embeddings table. */
export interface EmbeddingRow {
  /** Who embedded, and how the inputs were sent. */
  engine: string;
  model: string;
  threads: number;
  /** Inputs embedded per second (median, min, max over the runs). */
  inputsPerSecond?: Figure;
  available: boolean;
  reason?: string;
}

/** 64 short, distinct texts (a few words each). */
export function embeddingTexts(): string[] {
  const words = ['the sea', 'a cat', 'the sun', 'a dog', 'and', 'is', 'in', 'of the'];
  return Array.from(
    { length: embeddingInputs },
    (_, i) => `${words[i % 8]} ${words[(i * 3 + 1) % 8]} ${words[(i * 5 + 2) % 8]} number ${i}`,
  );
}

/**
 * The bench's embedding model: bge-small's shape with random weights in Q8_0 (about 23 MB): the
 * compute of the real model. F16 weights ran at 0.7 inputs/s in both wllama's SIMD-less WASM and
 * @fugood/llama.node's AVX-less build on a loaded 2-core machine.
 */
export async function prepareEmbeddingModel(
  dir: string,
): Promise<{ id: string; path: string; bytes: number; writtenAt: number }> {
  const id = 'bench-bert-small-q8_0';
  const path = join(dir, `${id}.gguf`);
  const model = tinyBertModel({ name: id, config: smallBertConfig, type: 'Q8_0' });
  const expected = encodeGguf(model);
  const current = await readFile(path).catch(() => undefined);
  if (!current || !Buffer.from(expected).equals(current)) await writeGgufFile(path, model);
  const info = await stat(path);
  return { id, path, bytes: info.size, writtenAt: info.mtimeMs };
}

/** Options of {@link lmtabEmbeddingRows}. */
export interface LmtabEmbeddingOptions {
  relayUrl: string;
  model: string;
  threads: number;
  runs: number;
}

async function post(relayUrl: string, model: string, input: string | string[]): Promise<void> {
  const response = await fetch(`${relayUrl}/v1/embeddings`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model, input, encoding_format: 'base64' }),
  });
  if (!response.ok)
    throw new Error(`/v1/embeddings answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { data: unknown[] };
  const expected = typeof input === 'string' ? 1 : input.length;
  if (body.data.length !== expected)
    throw new Error(`expected ${expected} vectors, received ${body.data.length}`);
}

/**
 * lmtab through the relay: all 64 texts in one request (batched in the engine), and, to show what
 * the batching buys, the same texts as 64 requests one after another.
 */
export async function lmtabEmbeddingRows(options: LmtabEmbeddingOptions): Promise<EmbeddingRow[]> {
  const texts = embeddingTexts();
  const { relayUrl, model, threads } = options;
  await post(relayUrl, model, texts); // loads the model
  const batched: number[] = [];
  const single: number[] = [];
  for (let run = 0; run < options.runs; run++) {
    let started = performance.now();
    await post(relayUrl, model, texts);
    batched.push((texts.length * 1000) / (performance.now() - started));
    started = performance.now();
    for (const text of texts) await post(relayUrl, model, text);
    single.push((texts.length * 1000) / (performance.now() - started));
  }
  const row = { model, threads, available: true };
  return [
    {
      ...row,
      engine: 'lmtab (wllama), 64 inputs in one request',
      inputsPerSecond: summarize(batched),
    },
    { ...row, engine: 'lmtab (wllama), one request per input', inputsPerSecond: summarize(single) },
  ];
}

/**
 * Native llama.cpp on the same file: `llama-embedding`, built by `bench/build-native.sh` from the
 * same sources as lmtab's CPU build with `-march=native`, given all 64 texts at once (it packs them
 * into batches, as lmtab's engine does). Each run also embeds one text alone, and the rate is 63
 * inputs over the difference of the two wall times, which leaves out process start and model load.
 */
export async function nativeEmbeddingRow(options: {
  root: string;
  path: string;
  model: string;
  threads: number;
  runs: number;
}): Promise<EmbeddingRow> {
  const texts = embeddingTexts();
  const time = async (inputs: string[]) => {
    const started = performance.now();
    await runLlamaEmbedding(options.root, {
      model: options.path,
      texts: inputs,
      threads: options.threads,
    });
    return performance.now() - started;
  };
  await time(texts); // warms the file cache
  const rates: number[] = [];
  for (let run = 0; run < options.runs; run++) {
    const all = await time(texts);
    const one = await time(texts.slice(0, 1));
    rates.push(((texts.length - 1) * 1000) / Math.max(all - one, 1));
  }
  return {
    engine: 'llama.cpp (native, llama-embedding), 64 inputs in one call',
    model: options.model,
    threads: options.threads,
    inputsPerSecond: summarize(rates),
    available: true,
  };
}

/** The embeddings table of latest.md. */
export function embeddingTable(rows: EmbeddingRow[] | undefined): string {
  if (!rows || rows.length === 0) return 'Not measured in this run.';
  const fmt = (f: Figure | undefined) =>
    f ? `${f.median.toFixed(1)} (${f.min.toFixed(1)}–${f.max.toFixed(1)})` : '–';
  return [
    `| engine | model | threads | inputs/s (${embeddingInputs} short texts) |`,
    '|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.engine} | ${r.model} | ${r.threads} | ${r.available ? fmt(r.inputsPerSecond) : `not measured: ${r.reason ?? ''}`} |`,
    ),
  ].join('\n');
}

/** Options of {@link embeddingRows}. */
export interface EmbeddingRowsOptions {
  /** Where the bench keeps its models. */
  dir: string;
  /** The repository root (the native reference is built under it). */
  root: string;
  relayUrl: string;
  /** Whether the bench page joined the relay as its engine (lmtab's rows need it). */
  relayConnected: boolean;
  threads: number;
  runs: number;
  /** Whether to measure native llama.cpp too. */
  native: boolean;
  /** Imports the model file into the bench page's store, unless it is there already. */
  importModel(id: string, path: string, bytes: number, writtenAt: number): Promise<void>;
  log(line: string): void;
}

/** Every embeddings row of a bench run; a failure becomes a row that says why. */
export async function embeddingRows(options: EmbeddingRowsOptions): Promise<EmbeddingRow[]> {
  const model = await prepareEmbeddingModel(options.dir);
  const { threads, runs } = options;
  const failed = (engine: string, error: unknown): EmbeddingRow => {
    const reason = `failed: ${error instanceof Error ? error.message : String(error)}`;
    options.log(`embeddings ${engine} ${reason}`);
    return { engine, model: model.id, threads, available: false, reason };
  };
  const rows: EmbeddingRow[] = [];
  if (options.native) {
    options.log(`embeddings native ${threads}t: ${runs} runs`);
    rows.push(
      await nativeEmbeddingRow({
        root: options.root,
        path: model.path,
        model: model.id,
        threads,
        runs,
      }).catch((error: unknown) => failed('llama.cpp (native)', error)),
    );
  }
  if (!options.relayConnected) {
    rows.push({
      engine: 'lmtab (wllama)',
      model: model.id,
      threads,
      available: false,
      reason: 'the bench page could not connect to the relay as its engine tab',
    });
    return rows;
  }
  try {
    await options.importModel(model.id, model.path, model.bytes, model.writtenAt);
    options.log(`embeddings lmtab ${threads}t: ${runs} runs`);
    rows.push(
      ...(await lmtabEmbeddingRows({ relayUrl: options.relayUrl, model: model.id, threads, runs })),
    );
  } catch (error) {
    rows.push(failed('lmtab (wllama)', error));
  }
  return rows;
}
