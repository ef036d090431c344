// The GPU bench bundle's tool, run by its run.sh with the bundle's Node 24 (bundled by esbuild into
// the bundle's tool.mjs; nothing else is imported at run time):
//   system --out FILE [--dry-run]            the machine: CPU, GPUs (nvidia-smi), kernel, bundle
//   write-model --size S --type T --out FILE an LFM2-shaped GGUF (random weights, real shapes),
//                                            written by every core
//   webgpu --models A,B --out FILE [...]     lmtab's engine on wllama's stock WebGPU build, Dawn
//   summarize --dir DIR [--seconds N]        summary.md from the result files
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openAsBlob,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { createWllamaEngine, type GenerateRequest } from '../../src/engine/index.js';
import { readGgufHeader } from '../../src/store/index.js';
import { ggufTensorChunks, layoutGguf, type GgufModel } from '../../tests/support/gguf-writer.js';
import { fixtureModel, lfm2Model, type Lfm2Size } from '../../tests/support/lfm2-fixtures.js';
import { fileModelStore } from '../../tests/support/webgpu/file-model-store.js';
import { installNodeWebgpu, localFileUrl } from '../../tests/support/webgpu/node-webgpu.js';
import { notOnGpu, readOffload } from '../../tests/support/webgpu/offload-report.js';
import {
  readGpuRun,
  resultFiles,
  summarizeGpuRun,
  type GpuSystem,
  type WebgpuModelRun,
  type WebgpuRun,
} from './gpu-report.js';

const bundleDir = dirname(fileURLToPath(import.meta.url));

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

function system(out: string, dryRun: boolean): void {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '';
  let gpus: GpuSystem['gpus'] = [];
  try {
    const csv = execFileSync(
      'nvidia-smi',
      ['--query-gpu=name,driver_version,memory.total', '--format=csv,noheader'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    gpus = csv
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [name = '', driver = '', memory = ''] = line.split(',').map((f) => f.trim());
        return { name, driver, memory };
      });
  } catch {
    // No nvidia-smi: the Vulkan device line and the Dawn adapter name the GPU instead.
  }
  const info: GpuSystem = {
    date: new Date().toISOString(),
    cpu: cpu.trim(),
    cores: cpus().length,
    gpus,
    kernel: execFileSync('uname', ['-sr'], { encoding: 'utf8' }).trim(),
    dryRun,
    bundle: JSON.parse(readFileSync(join(bundleDir, 'manifest.json'), 'utf8')),
  };
  writeJson(out, info);
}

/** The model `write-model` writes for a size and type (the same in every worker thread). */
function benchModel(size: string, type: string): GgufModel {
  if (size === 'tiny') {
    return type === 'Q4_K_M'
      ? fixtureModel('lfm2Q4KM')
      : lfm2Model({ type: 'Q8_0', fillers: 'words' });
  }
  return lfm2Model({
    size: size as Exclude<Lfm2Size, 'tiny'>,
    type: type as 'Q8_0' | 'Q4_K_M',
    fillers: 'words',
  });
}

interface WriterJob {
  size: string;
  type: string;
  path: string;
  /** Indices of the tensors this thread writes. */
  tensors: number[];
}

/** A worker thread's share of `write-model`: its tensors, each at its offset in the file. */
function writeTensors(job: WriterJob): void {
  const model = benchModel(job.size, job.type);
  const layout = layoutGguf(model);
  const file = openSync(job.path, 'r+');
  try {
    for (const index of job.tensors) {
      let at = layout.dataOffset + layout.tensors[index]!.offset;
      for (const chunk of ggufTensorChunks(model, index)) {
        writeSync(file, chunk, 0, chunk.length, at);
        at += chunk.length;
      }
    }
  } finally {
    closeSync(file);
  }
}

/**
 * Writes an LFM2-shaped GGUF with every core: each worker thread generates and encodes a share of
 * the tensors (each tensor's values come from its own seeded stream, so the bytes are those of the
 * one-thread writer). A file already there with the same size and header is kept.
 */
async function writeModel(size: string, type: string, out: string): Promise<void> {
  const started = Date.now();
  const model = benchModel(size, type);
  const layout = layoutGguf(model);
  const present = existsSync(out) && statSync(out).size === layout.totalBytes;
  if (present && readFileSync(out).subarray(0, layout.header.length).equals(layout.header)) {
    process.stderr.write(`${basename(out)} is already there\n`);
    return;
  }
  const partial = `${out}.partial`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(partial, layout.header);
  truncateSync(partial, layout.totalBytes);
  // Largest tensors first, each to the least loaded thread.
  const threads = Math.min(availableParallelism(), model.tensors.length);
  const shares = Array.from({ length: threads }, () => ({ bytes: 0, tensors: [] as number[] }));
  const order = layout.tensors
    .map((t, i) => [i, t.byteLength] as const)
    .sort((a, b) => b[1] - a[1]);
  for (const [index, bytes] of order) {
    const share = shares.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    share.bytes += bytes;
    share.tensors.push(index);
  }
  await Promise.all(
    shares.map(
      (share) =>
        new Promise<void>((done, fail) => {
          const job: WriterJob = { size, type, path: partial, tensors: share.tensors };
          const thread = new Worker(fileURLToPath(import.meta.url), { workerData: job });
          thread.on('error', fail);
          thread.on('exit', (code) =>
            code === 0 ? done() : fail(new Error(`writer exit ${code}`)),
          );
        }),
    ),
  );
  renameSync(partial, out);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `wrote ${basename(out)} (${(layout.totalBytes / 1e6).toFixed(0)} MB) in ${seconds} s on ${threads} threads\n`,
  );
}

/** The model's one-token words (` word`), from which prompts of a known length are made. */
async function promptWords(path: string): Promise<string[]> {
  const { metadata } = await readGgufHeader(await openAsBlob(path));
  const tokens = metadata.get('tokenizer.ggml.tokens') as string[];
  return tokens.filter((t) => /^Ġ[a-z]+$/.test(t)).map((t) => ` ${t.slice(1)}`);
}

interface WebgpuOptions {
  models: string[];
  dawnFlags: string[];
  hideFeatures: string[];
  promptTokens: number;
  decodeTokens: number;
  reps: number;
  out: string;
}

async function webgpu(options: WebgpuOptions): Promise<void> {
  const gpu = await installNodeWebgpu({
    dawn: join(bundleDir, 'dawn/index.js'),
    dawnFlags: options.dawnFlags,
    hideFeatures: options.hideFeatures,
  });
  const ids = options.models.map((path) => basename(path, '.gguf'));
  const store = fileModelStore(
    Object.fromEntries(options.models.map((path, i) => [ids[i]!, { model: path }])),
  );
  const engine = createWllamaEngine({
    store,
    wasmUrl: localFileUrl(join(bundleDir, 'wllama/wllama.wasm')),
    parallel: 1,
    contextLength: 2048,
    keepAliveMs: 3_600_000,
  });
  const result: WebgpuRun = {
    dawnFlags: options.dawnFlags,
    hiddenFeatures: options.hideFeatures,
    adapter: gpu.adapter,
    runs: [],
  };
  for (const [i, path] of options.models.entries()) {
    const id = ids[i]!;
    const words = await promptWords(path);
    // A different first word each time, so that no prompt reuses another's cache.
    const prompt = (offset: number, count: number) =>
      Array.from({ length: count }, (_, k) => words[(offset + k * 7) % words.length]).join('');
    const request = (offset: number, count: number, answer: number): GenerateRequest => ({
      model: id,
      input: { kind: 'prompt', prompt: prompt(offset, count) },
      sampling: { maxTokens: answer, temperature: 0, ignoreEos: true },
    });
    const from = gpu.log.length;
    const started = performance.now();
    const loaded = await engine.load(id, { contextLength: 2048 });
    const loadMs = performance.now() - started;
    const offload = readOffload(gpu.log.slice(from));
    const run: WebgpuModelRun = {
      file: basename(path),
      bytes: statSync(path).size,
      info: loaded.info,
      offload,
      loadMs: Math.round(loadMs),
      prompt: { tokens: 0, tokPerSec: [] },
      decode: { tokens: 0, tokPerSec: [] },
    };
    const why = notOnGpu(offload);
    if (why !== undefined || loaded.info.backend !== 'webgpu') {
      run.problem = why ?? `the engine runs it on ${loaded.info.backend}`;
    }
    // Warm-up: the shaders of both the batched and the one-token kernels compile here.
    for await (const _ of engine.generate(request(1, options.promptTokens, 4))) void _;
    for (let rep = 0; rep < options.reps; rep++) {
      for await (const event of engine.generate(
        request(2 + rep, options.promptTokens, options.decodeTokens),
      )) {
        if (event.type !== 'done') continue;
        const { usage, timings } = event;
        run.prompt.tokens = usage.promptTokens - (usage.cachedPromptTokens ?? 0);
        run.decode.tokens = usage.completionTokens;
        run.prompt.tokPerSec.push((1000 * run.prompt.tokens) / timings.promptMs);
        run.decode.tokPerSec.push((1000 * usage.completionTokens) / timings.decodeMs);
      }
    }
    await engine.unload();
    const speed = (values: number[]) => values.map((v) => v.toFixed(1)).join(', ');
    process.stderr.write(
      `${run.file}: ${loaded.info.backend}, ${offload.layers ? `${offload.layers.offloaded}/${offload.layers.total} layers` : 'no layers'} on the GPU; prompt ${speed(run.prompt.tokPerSec)}, decode ${speed(run.decode.tokPerSec)} tok/s\n`,
    );
    result.runs.push(run);
  }
  // llama.cpp's log of every load, for whoever reads the results.
  writeFileSync(join(dirname(options.out), resultFiles.webgpuLog), gpu.log.join('\n') + '\n', {
    flag: 'a',
  });
  writeJson(options.out, result);
}

function summarize(dir: string, seconds: number | undefined): void {
  if (seconds !== undefined) {
    const path = join(dir, resultFiles.system);
    writeJson(path, { ...JSON.parse(readFileSync(path, 'utf8')), seconds });
  }
  const summary = summarizeGpuRun(readGpuRun(dir));
  writeFileSync(join(dir, resultFiles.summary), summary);
  process.stdout.write(summary);
}

const list = (text: string | undefined) => (text ? text.split(',').filter(Boolean) : []);

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      out: { type: 'string' },
      dir: { type: 'string' },
      size: { type: 'string' },
      type: { type: 'string' },
      models: { type: 'string' },
      'dawn-flags': { type: 'string', default: 'backend=vulkan' },
      'hide-features': { type: 'string' },
      prompt: { type: 'string', default: '512' },
      decode: { type: 'string', default: '128' },
      reps: { type: 'string', default: '3' },
      seconds: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  if (command === 'system') return system(values.out!, values['dry-run']!);
  if (command === 'write-model') return writeModel(values.size!, values.type!, values.out!);
  if (command === 'summarize') {
    return summarize(values.dir!, values.seconds ? Number(values.seconds) : undefined);
  }
  if (command === 'webgpu') {
    const models = list(values.models);
    const missing = models.filter((m) => !existsSync(m));
    if (missing.length > 0) throw new Error(`webgpu: expected model files, missing ${missing}`);
    return webgpu({
      models,
      dawnFlags: list(values['dawn-flags']),
      hideFeatures: list(values['hide-features']),
      promptTokens: Number(values.prompt),
      decodeTokens: Number(values.decode),
      reps: Number(values.reps),
      out: values.out!,
    });
  }
  throw new Error(
    `expected a command (system, write-model, webgpu, summarize), got ${command ?? 'none'}`,
  );
}

if (isMainThread) {
  main().then(
    // wllama's worker threads end with the engine's unload; nothing else keeps the process.
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
      process.exit(1);
    },
  );
} else {
  writeTensors(workerData as WriterJob);
}
