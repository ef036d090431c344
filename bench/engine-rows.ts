// One row per engine, size, quantization and thread count: load, prompt, decode, chat, memory.
import { runLlamaBench } from './llama-bench.js';
import type { BenchModelFile } from './models.js';
import { runNative } from './native-reference.js';
import { ensureOptionalPackage } from './optional-package.js';
import type { EngineRow } from './results.js';
import { Runs } from './runs.js';
import { WordTexts } from './workload.js';
import {
  cacheDir,
  log,
  memory,
  messageOf,
  mib,
  pageCall,
  root,
  textsFor,
  type Context,
} from './bench-context.js';

/** lmtab's engine in the bench page (wllama's stock build or lmtab's CPU build), on a backend. */
export async function wllamaRow(
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
  let ran: Pick<EngineRow, 'build' | 'kernels' | 'engineBuffersMiB'> = {};
  let afterLoad: Pick<EngineRow, 'loadPeakMemoryMiB' | 'loadedMemoryMiB'> = {};
  for (let run = 0; run < settings.runs; run++) {
    log(
      `${engine} ${backend} ${threads}t ${model.size} ${model.quant}: run ${run + 1}/${settings.runs}`,
    );
    const loaded = await pageCall(page, 'load', model.id);
    ran = {
      build: loaded.info?.build,
      kernels: loaded.info?.kernels,
      engineBuffersMiB: loaded.info?.buffers,
    };
    if (run === 0) afterLoad = sampler.loaded();
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
    if (ctx.chat)
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
    ...ran,
    available: true,
    ...runs.figures(),
    loadFrom: 'IndexedDB',
    streams: true,
    ...afterLoad,
    ...memoryFigures,
  };
}

/** @fugood/node-llama-wasm in the bench page, for the engine choice. */
export async function llamaWasmRow(
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

/**
 * Runs one engine row; a row that fails is reported as not available, with the error, so that
 * an hours-long run still writes every other figure.
 */
export async function orFailed(
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

/** The old prebuilt reference, @fugood/llama.node, in its own child process. */
export async function nativeRow(
  ctx: Context,
  model: BenchModelFile,
  threads: number,
  childScript: string,
): Promise<EngineRow> {
  const { settings } = ctx;
  const texts = new WordTexts(model.words);
  log(`llama.node ${threads}t ${model.size} ${model.quant}: ${settings.runs} runs`);
  const result = await runNative(childScript, {
    packageEntry: ensureOptionalPackage(cacheDir, '@fugood/llama.node', log),
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
export async function llamaBenchRow(
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
