// `npm run bench`: generates the models, builds the bench page, starts the relay, drives headless
// Chromium, runs the native reference, and writes bench/results/*.json, latest.md and the latest
// run's section of docs/performance.md. See bench/README.md.
import { stat } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createRelay, newSecret } from '../src/relay/index.js';
import packageJson from '../package.json';
import { addRun } from './add-run.js';
import { args, chosenEngines, exitWithHelpIfAsked, settingsFromArgs } from './bench-args.js';
import {
  cacheDir,
  ensureImported,
  log,
  messageOf,
  pageCall,
  root,
  type Context,
} from './bench-context.js';
import { buildBenchPage } from './build-page.js';
import { embeddingRows } from './embeddings.js';
import { llamaBenchRow, llamaWasmRow, nativeRow, orFailed, wllamaRow } from './engine-rows.js';
import { ensureNativeBuild, nativePaths, type NativeBuildInfo } from './llama-bench.js';
import { probeLlamaWasm, verdict } from './llama-wasm-choice.js';
import { prepareModels, quantizeQ4KM, visionFixture, type BenchModelFile } from './models.js';
import { findBrowserPid } from './process-memory.js';
import type { BenchResults, ConcurrencyRow, EngineRow } from './results.js';
import { checkTargets } from './targets.js';
import { concurrencyRows, relayMissing, transportRows } from './transport-rows.js';
import type { BenchQuant } from './workload.js';
import { readEarlierResults, writeResults } from './write-results.js';

const appDir = join(cacheDir, 'app');
const profileDir = join(cacheDir, 'profile');

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
      chat: !args['no-chat'],
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

exitWithHelpIfAsked();
main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
