// `npm run bench`: generates the models, builds the bench page, starts the relay, drives headless
// Chromium, runs the native reference, and writes bench/results/*.json, latest.md and the README's
// Performance section. See bench/README.md.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { format, resolveConfig } from 'prettier';
import { parseJsonFile } from '../src/cloud/parse-json-file.js';
import { createRelay, newSecret } from '../src/relay/index.js';
import packageJson from '../package.json';
import { addRun } from './add-run.js';
import { embeddingRows } from './embeddings.js';
import { buildBenchPage } from './build-page.js';
import type { ChatTurnsResult } from './chat-turns.js';
import type { GenerateSpec } from './generate-spec.js';
import { wireRequest } from './generate-spec.js';
import {
  ensureNativeBuild,
  nativePaths,
  runLlamaBench,
  type NativeBuildInfo,
} from './llama-bench.js';
import { prepareModels, quantizeQ4KM, visionFixture, type BenchModelFile } from './models.js';
import { runNative } from './native-reference.js';
import type { BenchPageApi, CapabilityCheck, PageInfo } from './page/bench-api.js';
import { findBrowserPid, samplePeakRss, treeRssBytes } from './process-memory.js';
import { renderMarkdown, renderTables, machineLine, replaceReadmeSection } from './report.js';
import type { BenchResults, ConcurrencyRow, EngineRow, TransportRow } from './results.js';
import { perSecond, summarize, threadsLabel } from './stats.js';
import {
  clientDecodeTokS,
  processedPromptTokens,
  StreamClock,
  timeSseStream,
  type StreamTiming,
} from './stream-timing.js';
import { checkTargets } from './targets.js';
import {
  benchSettings,
  WordTexts,
  type BenchQuant,
  type BenchSettings,
  type BenchSize,
} from './workload.js';
import { testPorts } from '../tests/support/test-ports.js';

const root = process.cwd();
const cacheDir = join(root, 'bench/.cache');
const appDir = join(cacheDir, 'app');
const profileDir = join(cacheDir, 'profile');
const resultsDir = join(root, 'bench/results');
const mib = (bytes: number) => bytes / 2 ** 20;
const now = () => performance.now();
const log = (line: string) =>
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    quants: { type: 'string' },
    runs: { type: 'string' },
    threads: { type: 'string' },
    port: { type: 'string', default: String(testPorts.bench) },
    webgpu: { type: 'string', default: 'auto' },
    engines: { type: 'string' },
    'skip-llama-wasm': { type: 'boolean', default: false },
    'skip-native': { type: 'boolean', default: false },
    'no-chat': { type: 'boolean', default: false },
    'no-transports': { type: 'boolean', default: false },
    clients: { type: 'string' },
    'add-to': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  process.stdout.write(`npm run bench [-- options]
  --quick              tiny model, 1 run, short generations: proves the harness, measures nothing
  --sizes=350M,1.2B    model sizes (tiny, 350M, 1.2B, 2.6B, 8B-A1B); default 350M,1.2B (tiny with --quick)
  --quants=Q8_0,Q4_K_M weight types; default both (Q4_K_M is quantized from Q8_0 by the native
                       reference's llama-quantize); Q8_0 only with --quick
  --runs=N             runs per figure; default 3 (1 with --quick)
  --threads=1,4        thread counts; default 1, half the cores and all cores
  --port=${testPorts.bench}         port of the relay that serves the bench page
  --webgpu=auto        auto: offer a WebGPU adapter if the browser has one (SwiftShader allowed);
                       swiftshader: force SwiftShader; off: no WebGPU
  --engines=LIST       which engines: native (llama.cpp built here, llama-bench), llama.node
                       (the old prebuilt reference), lmtab-cpu (lmtab's CPU build), wllama
                       (wllama's stock build), node-llama-wasm; default all
  --skip-llama-wasm    skip @fugood/node-llama-wasm
  --skip-native        skip both native references
  --no-chat            engine rows measure prompt, decode, load and memory only (no chat turns)
  --no-transports      skip the transport rows (concurrent clients still run)
  --clients=1,4        concurrent client counts; default 1,4,8
  --add-to=FILE        add this run's engine rows to an earlier results file (e.g. 1.2B rows to
                       a 350M run), skipping transports, concurrent clients and the engine-choice
                       checks, which the earlier run measured; latest.* then show the joined figures
Environment: LMTAB_BROWSER (Chromium path), LMTAB_BENCH_BROWSER_ARGS (extra browser flags).
`);
  process.exit(0);
}

function settingsFromArgs(): BenchSettings {
  const settings = benchSettings(args.quick ?? false);
  if (args.sizes) settings.sizes = args.sizes.split(',').map((s) => s.trim() as BenchSize);
  if (args.clients) settings.clients = args.clients.split(',').map((c) => Math.max(1, Number(c)));
  if (args.runs) {
    settings.runs = Math.max(1, Number(args.runs));
    settings.transportRuns = Math.max(settings.runs, settings.transportRuns);
  }
  return settings;
}

const baseArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Background tabs and timers must not be slowed while the bench waits on the engine.
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
];
const webgpuArgs: Record<string, string[]> = {
  auto: ['--enable-unsafe-webgpu', '--enable-unsafe-swiftshader'],
  swiftshader: [
    '--enable-unsafe-webgpu',
    '--enable-unsafe-swiftshader',
    '--use-webgpu-adapter=swiftshader',
  ],
  off: ['--disable-webgpu'],
};

/** Calls a function of the page's bench API with JSON arguments. */
function pageCall<K extends keyof BenchPageApi>(
  page: Page,
  name: K,
  ...callArgs: Parameters<BenchPageApi[K]>
): Promise<Awaited<ReturnType<BenchPageApi[K]>>> {
  return page.evaluate(
    ([fn, a]) => (window.lmtabBench[fn] as (...x: unknown[]) => Promise<unknown>)(...a),
    [name, callArgs] as const,
  ) as Promise<Awaited<ReturnType<BenchPageApi[K]>>>;
}

async function ensureImported(
  page: Page,
  id: string,
  path: string,
  bytes: number,
  writtenAt: number,
  projector?: string,
) {
  if (await pageCall(page, 'hasModel', id, bytes, writtenAt)) return;
  log(`importing ${id} into IndexedDB`);
  await page.locator('#model-file').setInputFiles(path);
  if (projector) await page.locator('#projector-file').setInputFiles(projector);
  await pageCall(page, 'importChosen', id, projector !== undefined);
}

/** Collects per-run values and summarizes them. */
class Runs {
  readonly promptTokS: number[] = [];
  readonly decodeTokS: number[] = [];
  readonly loadMs: number[] = [];
  readonly turn1: number[] = [];
  readonly last: number[] = [];
  readonly cold: number[] = [];
  promptTokens?: number;
  lastTurnPromptTokens?: number;
  lastTurnColdPromptTokens?: number;

  generation(timing: StreamTiming) {
    if (timing.engine) {
      this.promptTokS.push(perSecond(processedPromptTokens(timing), timing.engine.promptMs));
      this.decodeTokS.push(perSecond(timing.completionTokens, timing.engine.decodeMs));
    }
    this.promptTokens = processedPromptTokens(timing);
  }

  chat(result: ChatTurnsResult) {
    this.turn1.push(result.ttftMs[0] ?? NaN);
    this.last.push(result.ttftMs.at(-1) ?? NaN);
    this.cold.push(result.coldTtftMs);
    this.lastTurnPromptTokens = result.promptTokens.at(-1);
    this.lastTurnColdPromptTokens = result.coldPromptTokens;
  }

  figures() {
    return {
      promptTokS: summarize(this.promptTokS),
      decodeTokS: summarize(this.decodeTokS),
      promptTokens: this.promptTokens,
      ttftTurn1Ms: summarize(this.turn1),
      ttftLastTurnMs: summarize(this.last),
      ttftLastTurnColdMs: summarize(this.cold),
      lastTurnPromptTokens: this.lastTurnPromptTokens,
      lastTurnColdPromptTokens: this.lastTurnColdPromptTokens,
      loadMs: summarize(this.loadMs),
    };
  }
}

interface Context {
  page: Page;
  settings: BenchSettings;
  browserPid: number | undefined;
  info: PageInfo;
  relayUrl: string;
  relayConnected: boolean;
  texts: Map<string, WordTexts>;
}

const textsFor = (ctx: Context, model: BenchModelFile) => {
  let texts = ctx.texts.get(model.id);
  if (!texts) ctx.texts.set(model.id, (texts = new WordTexts(model.words)));
  return texts;
};

function memory(ctx: Context) {
  if (ctx.browserPid === undefined) return { stop: () => ({}) };
  const pid = ctx.browserPid;
  const baseline = treeRssBytes(pid);
  const sampler = samplePeakRss(pid, 500);
  return {
    stop: () => ({ peakMemoryMiB: mib(sampler.stop()), baselineMemoryMiB: mib(baseline) }),
  };
}

async function wllamaRow(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
  backend: 'wasm' | 'webgpu',
  build: 'stock' | 'lmtab-cpu' = 'stock',
): Promise<EngineRow> {
  const { page, settings } = ctx;
  const texts = textsFor(ctx, model);
  const engine = build === 'stock' ? ('wllama' as const) : ('lmtab-cpu' as const);
  const base = { size: model.size, quant: model.quant, engine, backend, threads };
  await pageCall(page, 'configure', {
    threads,
    gpuLayers: backend === 'wasm' ? 0 : undefined,
    build,
  });
  const sampler = memory(ctx);
  const runs = new Runs();
  for (let run = 0; run < settings.runs; run++) {
    log(
      `${engine} ${backend} ${threads}t ${model.size} ${model.quant}: run ${run + 1}/${settings.runs}`,
    );
    const loaded = await pageCall(page, 'load', model.id);
    if (backend === 'webgpu' && loaded.info?.backend !== 'webgpu') {
      sampler.stop();
      await pageCall(page, 'unload');
      return {
        ...base,
        available: false,
        reason: loaded.info?.fallbackReason ?? 'the engine fell back to WebAssembly',
      };
    }
    runs.loadMs.push(loaded.loadMs);
    runs.generation(
      await pageCall(page, 'direct', {
        model: model.id,
        prompt: texts.text(settings.promptTokens),
        maxTokens: settings.decodeTokens,
      }),
    );
    if (!args['no-chat'])
      runs.chat(
        await pageCall(
          page,
          'directChat',
          model.id,
          texts.chat(settings.turns, settings.userMessageTokens, settings.replyTokens),
        ),
      );
  }
  const memoryFigures = sampler.stop();
  await pageCall(page, 'unload');
  return {
    ...base,
    available: true,
    ...runs.figures(),
    loadFrom: 'IndexedDB',
    streams: true,
    ...memoryFigures,
  };
}

async function llamaWasmRow(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
): Promise<EngineRow> {
  const { page, settings } = ctx;
  const texts = textsFor(ctx, model);
  const sampler = memory(ctx);
  const runs = new Runs();
  for (let run = 0; run < settings.runs; run++) {
    log(`node-llama-wasm ${threads}t ${model.size}: run ${run + 1}/${settings.runs}`);
    await pageCall(page, 'llamaWasmRelease');
    const loaded = await pageCall(page, 'llamaWasmLoad', model.id, {
      threads,
      contextLength: settings.contextLength,
    });
    runs.loadMs.push(loaded.loadMs);
    runs.generation(
      await pageCall(page, 'llamaWasmGenerate', {
        model: model.id,
        prompt: texts.text(settings.promptTokens),
        maxTokens: settings.decodeTokens,
      }),
    );
    runs.chat(
      await pageCall(
        page,
        'llamaWasmChat',
        texts.chat(settings.turns, settings.userMessageTokens, settings.replyTokens),
      ),
    );
  }
  const memoryFigures = sampler.stop();
  await pageCall(page, 'llamaWasmRelease');
  return {
    size: model.size,
    quant: model.quant,
    engine: 'node-llama-wasm',
    backend: 'wasm',
    threads,
    available: true,
    ...runs.figures(),
    loadFrom: 'IndexedDB',
    // Measured by the capability check below; its token callbacks come after the completion.
    streams: false,
    ...memoryFigures,
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs one engine row; a row that fails is reported as not available, with the error, so that
 * an hours-long run still writes every other figure.
 */
async function orFailed(
  row: Pick<EngineRow, 'size' | 'quant' | 'engine' | 'backend' | 'threads'>,
  measure: () => Promise<EngineRow>,
): Promise<EngineRow> {
  try {
    return await measure();
  } catch (error) {
    const reason = `failed: ${messageOf(error)}`;
    log(`${row.engine} ${row.backend} ${row.threads}t ${row.size} ${reason}`);
    return { ...row, available: false, reason };
  }
}

async function nativeRow(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
  childScript: string,
): Promise<EngineRow> {
  const { settings } = ctx;
  const texts = new WordTexts(model.words);
  log(`llama.node ${threads}t ${model.size} ${model.quant}: ${settings.runs} runs`);
  const result = await runNative(childScript, {
    model: model.path,
    threads,
    contextLength: settings.contextLength,
    prompts: Array.from({ length: settings.runs }, () => texts.text(settings.promptTokens)),
    decodeTokens: settings.decodeTokens,
    chats: Array.from({ length: settings.runs }, () =>
      texts.chat(settings.turns, settings.userMessageTokens, settings.replyTokens),
    ),
  });
  const runs = new Runs();
  runs.loadMs.push(...result.loadMs);
  runs.promptTokS.push(...result.promptTokS);
  runs.decodeTokS.push(...result.decodeTokS);
  for (const chat of result.chats) runs.chat(chat);
  return {
    size: model.size,
    quant: model.quant,
    engine: 'llama.node (prebuilt)',
    backend: 'cpu',
    threads,
    available: true,
    ...runs.figures(),
    promptTokens: result.promptTokens[0],
    loadFrom: 'disk, mmap',
    streams: true,
    peakMemoryMiB: mib(result.peakRssBytes),
  };
}

/** Native llama.cpp built here, timed by its own llama-bench on the same file and threads. */
async function llamaBenchRow(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
): Promise<EngineRow> {
  const { settings } = ctx;
  log(
    `llama.cpp native (llama-bench) ${threads}t ${model.size} ${model.quant}: ${settings.runs} runs`,
  );
  const figures = await runLlamaBench(root, {
    model: model.path,
    threads,
    promptTokens: settings.promptTokens,
    decodeTokens: settings.decodeTokens,
    runs: settings.runs,
  });
  return {
    size: model.size,
    quant: model.quant,
    engine: 'llama.cpp (native)',
    backend: 'cpu',
    threads,
    available: true,
    promptTokS: figures.promptTokS,
    decodeTokS: figures.decodeTokS,
    promptTokens: figures.promptTokens,
    loadFrom: 'disk, mmap',
    streams: true,
    peakMemoryMiB: figures.peakMemoryMiB,
  };
}

async function relayFetch(relayUrl: string, spec: GenerateSpec): Promise<StreamTiming> {
  const { path, body } = wireRequest(spec);
  const clock = new StreamClock(now(), now);
  const response = await fetch(`${relayUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) {
    throw new Error(`relay ${path} answered ${response.status}: ${await response.text()}`);
  }
  return timeSseStream(response.body, clock);
}

const relayMissing = 'the bench page could not connect to the relay as its engine tab';

async function transportRows(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
): Promise<TransportRow[]> {
  const { page, settings } = ctx;
  const texts = textsFor(ctx, model);
  await pageCall(page, 'configure', { threads, gpuLayers: 0 });
  await pageCall(page, 'load', model.id);
  const paths = ['direct engine call', 'service worker', 'relay'] as const;
  const decode = new Map<string, number[]>(paths.map((p) => [p, []]));
  const ttft = new Map<string, number[]>(paths.map((p) => [p, []]));
  for (let run = 0; run < settings.transportRuns; run++) {
    // Rotate the order so that drift on a busy machine does not favour one path.
    for (let i = 0; i < paths.length; i++) {
      const path = paths[(run + i) % paths.length]!;
      if (path === 'relay' && !ctx.relayConnected) continue;
      log(`transport ${path} ${model.size}: run ${run + 1}/${settings.transportRuns}`);
      const spec: GenerateSpec = {
        model: model.id,
        messages: [{ role: 'user', content: texts.text(settings.transportPromptTokens) }],
        maxTokens: settings.transportDecodeTokens,
      };
      const timing =
        path === 'direct engine call'
          ? await pageCall(page, 'direct', spec)
          : path === 'service worker'
            ? await pageCall(page, 'fetch', spec)
            : await relayFetch(ctx.relayUrl, spec);
      decode.get(path)!.push(clientDecodeTokS(timing));
      ttft.get(path)!.push(timing.ttftMs);
    }
  }
  return paths.map((path) =>
    path === 'relay' && !ctx.relayConnected
      ? { size: model.size, path, threads, available: false, reason: relayMissing }
      : {
          size: model.size,
          path,
          threads,
          available: true,
          decodeTokS: summarize(decode.get(path)!),
          ttftMs: summarize(ttft.get(path)!),
        },
  );
}

async function concurrencyRows(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
): Promise<ConcurrencyRow[]> {
  const { page, settings } = ctx;
  const texts = textsFor(ctx, model);
  // The app's engine and build (src/engine/cpu-build-files.ts).
  await pageCall(page, 'configure', { threads, gpuLayers: 0 });
  await pageCall(page, 'load', model.id);
  const rows: ConcurrencyRow[] = [];
  const specs = (clients: number) =>
    Array.from({ length: clients }, () => ({
      model: model.id,
      messages: [{ role: 'user' as const, content: texts.text(settings.transportPromptTokens) }],
      maxTokens: settings.clientTokens,
    }));
  for (const via of ['relay', 'service worker'] as const) {
    for (const clients of settings.clients) {
      const base = { size: model.size, quant: model.quant, via, clients, threads };
      if (via === 'relay' && !ctx.relayConnected) {
        rows.push({ ...base, available: false, reason: relayMissing });
        continue;
      }
      const aggregate: number[] = [];
      for (let run = 0; run < settings.runs; run++) {
        log(
          `concurrency ${via} ${clients} clients ${model.size} ${model.quant}: run ${run + 1}/${settings.runs}`,
        );
        let wallMs: number;
        let timings: StreamTiming[];
        if (via === 'service worker') {
          ({ wallMs, timings } = await pageCall(page, 'fetchConcurrent', specs(clients)));
        } else {
          const started = now();
          timings = await Promise.all(specs(clients).map((s) => relayFetch(ctx.relayUrl, s)));
          wallMs = now() - started;
        }
        aggregate.push(
          perSecond(
            timings.reduce((sum, t) => sum + t.completionTokens, 0),
            wallMs,
          ),
        );
      }
      rows.push({ ...base, available: true, aggregateTokS: summarize(aggregate) });
    }
  }
  await pageCall(page, 'unload');
  return rows;
}

async function probeLlamaWasm(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
  vision: string,
): Promise<CapabilityCheck[]> {
  log('node-llama-wasm: checking streaming, abort, parallel requests, chat templates, images');
  await pageCall(ctx.page, 'llamaWasmLoad', model.id, {
    threads,
    contextLength: ctx.settings.contextLength,
  });
  const checks = await pageCall(ctx.page, 'llamaWasmProbe');
  await pageCall(ctx.page, 'llamaWasmRelease');
  checks.push(await pageCall(ctx.page, 'llamaWasmProbeImages', vision));
  return checks;
}

function verdict(checks: CapabilityCheck[], engines: EngineRow[]): string {
  const failed = checks.filter((c) => !c.supported).map((c) => c.need);
  const compare = engines
    .filter((r) => r.engine === 'node-llama-wasm' && r.available)
    .map((r) => {
      const w = engines.find(
        (x) =>
          x.engine === 'wllama' &&
          x.backend === 'wasm' &&
          x.size === r.size &&
          x.threads === r.threads,
      );
      const d = (x?: EngineRow) => x?.decodeTokS?.median.toFixed(1) ?? '–';
      const p = (x?: EngineRow) => x?.promptTokS?.median.toFixed(1) ?? '–';
      return `${r.size} ${threadsLabel(r.threads)}: decode ${d(r)} against wllama's ${d(w)} tok/s, prompt ${p(r)} against ${p(w)}`;
    })
    .join('; ');
  if (failed.length === 0) {
    return `node-llama-wasm meets every need checked here (${compare}): whichever is faster should be the default CPU path.`;
  }
  return `**Verdict: wllama stays lmtab's engine.** node-llama-wasm (1.7.15) fails ${failed.length} of lmtab's needs: ${failed.join(', ')} (evidence above). Speeds measured here: ${compare || 'not measured'}. A faster engine that cannot stream, stop or serve two requests at once cannot back the OpenAI API (streamed answers, client disconnects, parallel slots), so it is not wired behind the Engine interface.`;
}

async function main(): Promise<void> {
  const settings = settingsFromArgs();
  const startedAt = new Date().toISOString();
  const loadAverage = loadavg()[0] ?? 0;
  const earlier = args['add-to'] ? await readEarlierResults(args['add-to']) : undefined;
  const engineNames = chosenEngines();
  log(`settings: ${JSON.stringify({ ...settings })}`);
  const quants = (args.quants?.split(',').map((q) => q.trim()) ??
    (settings.quick ? ['Q8_0'] : ['Q8_0', 'Q4_K_M'])) as BenchQuant[];
  const unknownQuant = quants.filter((q) => q !== 'Q8_0' && q !== 'Q4_K_M');
  if (unknownQuant.length > 0)
    throw new Error(`--quants: expected Q8_0 and/or Q4_K_M, got ${unknownQuant.join(', ')}`);
  // The native reference is also the quantizer of the Q4_K_M files.
  let native: NativeBuildInfo | undefined;
  if (engineNames.has('native') || quants.includes('Q4_K_M'))
    native = await ensureNativeBuild(root, log);
  const q8Models = await prepareModels(settings.sizes, join(cacheDir, 'models'), log);
  const models: BenchModelFile[] = [];
  for (const model of q8Models) {
    if (quants.includes('Q8_0')) models.push(model);
    if (quants.includes('Q4_K_M') && model.size !== 'tiny')
      models.push(await quantizeQ4KM(model, nativePaths(root).quantize, log));
  }
  const vision = await visionFixture(join(root, 'tests/.cache/fixtures'));
  log('building the bench page');
  await buildBenchPage(root, appDir);
  const engineSecret = newSecret();
  const relay = await createRelay({
    appDir,
    port: Number(args.port),
    version: packageJson.version,
    engineSecret,
  });
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.LMTAB_BROWSER ?? '/usr/bin/chromium',
    headless: true,
    args: [
      ...baseArgs,
      ...(webgpuArgs[args.webgpu ?? 'auto'] ?? webgpuArgs.auto!),
      // A machine with a real GPU may need more (e.g. --enable-features=Vulkan).
      ...(process.env.LMTAB_BENCH_BROWSER_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => log(`page error: ${error.message}`));
    // The profile keeps the imported models (IndexedDB), but an earlier run's service worker and
    // caches would serve that run's build of the page and the engine: drop them.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', {
      origin: new URL(relay.url).origin,
      storageTypes: 'service_workers,cache_storage',
    });
    await cdp.detach();
    await page.goto(`${relay.url}/bench/page/index.html#pair=${engineSecret}`);
    await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
    const info = await pageCall(page, 'info');
    log(
      `page: ${info.cores} cores, isolated ${info.crossOriginIsolated}, plan ${info.plan.backend}${info.plan.fallbackReason ? ` (${info.plan.fallbackReason})` : ''}`,
    );
    for (const model of models)
      await ensureImported(page, model.id, model.path, model.bytes, model.writtenAt);
    const visionId = 'bench-tiny-lfm2-vl';
    const visionStat = await stat(vision.model);
    const projectorStat = await stat(vision.projector);
    await ensureImported(
      page,
      visionId,
      vision.model,
      visionStat.size + projectorStat.size,
      Math.max(visionStat.mtimeMs, projectorStat.mtimeMs),
      vision.projector,
    );

    const ctx: Context = {
      page,
      settings,
      browserPid: findBrowserPid(profileDir),
      info,
      relayUrl: relay.url,
      relayConnected: await pageCall(page, 'connectRelay'),
      texts: new Map(),
    };
    const childScript = join(cacheDir, 'runner/native-child.js');
    // All cores is lmtab's default; half of them is llama.cpp's and wllama's (physical cores).
    const threadCounts = args.threads
      ? args.threads.split(',').map((t) => Math.max(1, Number(t)))
      : [...new Set([1, Math.floor(info.cores / 2) || 1, info.cores])];
    const allThreads = Math.max(...threadCounts);
    const engines: EngineRow[] = [];
    for (const model of models) {
      const quant = model.quant;
      if (engineNames.has('native')) {
        for (const threads of threadCounts) {
          engines.push(
            await orFailed(
              { size: model.size, quant, engine: 'llama.cpp (native)', backend: 'cpu', threads },
              () => llamaBenchRow(ctx, model, threads),
            ),
          );
        }
      }
      if (engineNames.has('llama.node')) {
        for (const threads of threadCounts) {
          engines.push(
            await orFailed(
              { size: model.size, quant, engine: 'llama.node (prebuilt)', backend: 'cpu', threads },
              () => nativeRow(ctx, model, threads, childScript),
            ),
          );
        }
      }
      if (engineNames.has('lmtab-cpu')) {
        for (const threads of threadCounts)
          engines.push(
            await orFailed(
              { size: model.size, quant, engine: 'lmtab-cpu', backend: 'wasm', threads },
              () => wllamaRow(ctx, model, threads, 'wasm', 'lmtab-cpu'),
            ),
          );
      }
      if (engineNames.has('wllama')) {
        for (const threads of threadCounts)
          engines.push(
            await orFailed(
              { size: model.size, quant, engine: 'wllama', backend: 'wasm', threads },
              () => wllamaRow(ctx, model, threads, 'wasm'),
            ),
          );
        engines.push(
          info.plan.backend === 'webgpu'
            ? await orFailed(
                {
                  size: model.size,
                  quant,
                  engine: 'wllama',
                  backend: 'webgpu',
                  threads: allThreads,
                },
                () => wllamaRow(ctx, model, allThreads, 'webgpu'),
              )
            : {
                size: model.size,
                quant,
                engine: 'wllama',
                backend: 'webgpu',
                threads: allThreads,
                available: false,
                reason: info.plan.fallbackReason,
              },
        );
      }
      if (engineNames.has('node-llama-wasm')) {
        for (const threads of threadCounts)
          engines.push(
            await orFailed(
              { size: model.size, quant, engine: 'node-llama-wasm', backend: 'wasm', threads },
              () => llamaWasmRow(ctx, model, threads),
            ),
          );
      }
    }
    const first = models.find((m) => m.quant === 'Q8_0') ?? models[0]!;
    const transport =
      earlier || args['no-transports'] ? [] : await transportRows(ctx, first, allThreads);
    // 4 clients against 1 on each file of the first size: Q8_0, and Q4_K_M (the default download).
    const concurrency: ConcurrencyRow[] = [];
    for (const model of earlier ? [] : models.filter((m) => m.size === first.size))
      concurrency.push(...(await concurrencyRows(ctx, model, allThreads)));
    const embeddings = earlier
      ? undefined
      : await embeddingRows({
          dir: join(cacheDir, 'models'),
          root,
          relayUrl: relay.url,
          relayConnected: ctx.relayConnected,
          threads: allThreads,
          runs: settings.runs,
          native: engineNames.has('native'),
          importModel: (id, path, bytes, writtenAt) =>
            ensureImported(page, id, path, bytes, writtenAt),
          log,
        });
    let probeFailure: string | undefined;
    // An earlier run's checks stand; a run that added node-llama-wasm rows checks it too.
    const checks =
      !engineNames.has('node-llama-wasm') || earlier?.engineChoice.checks.length
        ? []
        : await probeLlamaWasm(ctx, first, allThreads, visionId).catch((error: unknown) => {
            probeFailure = messageOf(error);
            log(`node-llama-wasm checks failed: ${probeFailure}`);
            return [];
          });

    const notMeasured: BenchResults['notMeasured'] = [];
    if (probeFailure)
      notMeasured.push({ what: "node-llama-wasm's capability checks", why: probeFailure });
    if (!ctx.relayConnected && !earlier)
      notMeasured.push({ what: 'relay path and relay concurrency', why: relayMissing });
    if (info.plan.backend !== 'webgpu')
      notMeasured.push({ what: 'WebGPU (wllama)', why: info.plan.fallbackReason ?? 'no adapter' });
    notMeasured.push({
      what: 'WebGPU (node-llama-wasm)',
      why: `not attempted: its WebGPU build needs JSPI (${info.llamaWasm.webgpu ? 'present' : 'absent'} here) and, like wllama's, llama.cpp's WebGPU backend needs shader-f16`,
    });
    if (ctx.browserPid === undefined)
      notMeasured.push({
        what: 'browser peak memory',
        why: 'the Chromium process was not found in /proc',
      });

    const results: BenchResults = {
      schema: 1,
      startedAt,
      finishedAt: new Date().toISOString(),
      settings,
      machine: {
        cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
        cores: availableParallelism(),
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        os: `${type()} ${release()}`,
        node: process.versions.node,
        browser:
          context.browser()?.version() ??
          `Chromium (${info.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? 'unknown'})`,
        loadAverage,
      },
      native,
      models: models.map((m) => ({ size: m.size, quant: m.quant, id: m.id, bytes: m.bytes })),
      memoryMethod:
        "the sum of VmRSS over Chromium's process tree (browser, renderer with its workers, GPU and utility processes), sampled every 500 ms from /proc while that engine ran, with the sum before loading in parentheses; native: VmHWM of the reference's own child process.",
      engines,
      transport,
      concurrency,
      ...(embeddings ? { embeddings } : {}),
      engineChoice: {
        checks,
        verdict: checks.length ? verdict(checks, engines) : 'node-llama-wasm was skipped.',
      },
      targets: checkTargets({ engines, transport, concurrency }),
      notMeasured,
    };
    await writeResults(earlier ? addRun(earlier, results) : results);
  } finally {
    await context.close();
    await relay.close();
  }
}

const engineChoices = ['native', 'llama.node', 'lmtab-cpu', 'wllama', 'node-llama-wasm'] as const;

/** The engines `--engines` names, less those a `--skip-*` flag leaves out. */
function chosenEngines(): Set<(typeof engineChoices)[number]> {
  const names = args.engines?.split(',').map((name) => name.trim()) ?? [...engineChoices];
  const unknown = names.filter((name) => !(engineChoices as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `--engines: expected a comma-separated list of ${engineChoices.join(', ')}, got ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  const chosen = new Set(names as (typeof engineChoices)[number][]);
  if (args['skip-native']) {
    chosen.delete('native');
    chosen.delete('llama.node');
  }
  if (args['skip-llama-wasm']) chosen.delete('node-llama-wasm');
  return chosen;
}

/** The results file `--add-to` names, checked to be one `npm run bench` wrote. */
async function readEarlierResults(path: string): Promise<BenchResults> {
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new Error(
      `--add-to: expected a results file from an earlier run (bench/results/*.json), but ${path} cannot be read: ${(error as Error).message}`,
    );
  });
  const parsed = parseJsonFile(text, `--add-to's results file ${path}`) as Partial<BenchResults>;
  if (parsed.schema !== 1 || !Array.isArray(parsed.engines)) {
    throw new Error(
      `--add-to: expected bench results (schema 1, with engine rows) in ${path}, got ${JSON.stringify(parsed).slice(0, 80)}`,
    );
  }
  return parsed as BenchResults;
}

async function writeResults(results: BenchResults): Promise<void> {
  await mkdir(resultsDir, { recursive: true });
  const stamp = results.finishedAt.replaceAll(':', '-').slice(0, 19);
  const name = `${stamp}${results.settings.quick ? '-quick' : ''}.json`;
  // The project's Prettier settings, so that `npm run lint` accepts what the bench writes.
  const style = (filepath: string) =>
    resolveConfig(filepath).then((config) => ({ ...config, filepath }));
  const json = await format(JSON.stringify(results), await style(join(resultsDir, name)));
  await writeFile(join(resultsDir, name), json);
  await writeFile(join(resultsDir, 'latest.json'), json);
  const markdown = await format(
    renderMarkdown(results),
    await style(join(resultsDir, 'latest.md')),
  );
  await writeFile(join(resultsDir, 'latest.md'), markdown);
  const readmePath = join(root, 'README.md');
  const section = [
    `Latest run (\`bench/results/latest.md\` has every table): ${machineLine(results)}`,
    '',
    renderTables(results),
  ].join('\n');
  const readme = replaceReadmeSection(await readFile(readmePath, 'utf8'), section);
  await writeFile(readmePath, await format(readme, await style(readmePath)));
  log(`wrote bench/results/${name}, latest.json, latest.md and the README's Performance section`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
