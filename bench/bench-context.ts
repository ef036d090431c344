// What every part of the bench shares: the paths, the log, the page's bench API, the run's context.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import type { BenchModelFile } from './models.js';
import type { BenchPageApi, PageInfo } from './page/bench-api.js';
import { samplePeakRss, treeRssParts, type RssParts } from './process-memory.js';
import { WordTexts, type BenchSettings } from './workload.js';

/** The repository root (the bench runs from it). */
export const root = process.cwd();
/** The bench's own cache: models, the built page, the browser profile. */
export const cacheDir = join(root, 'bench/.cache');
/** Mebibytes in a byte count. */
export const mib = (bytes: number) => bytes / 2 ** 20;
/** Milliseconds now, on the bench's clock. */
export const now = () => performance.now();
/** Writes one timestamped line of the bench's progress. */
export const log = (line: string) =>
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
/** The message of anything thrown. */
export const messageOf = (error: unknown) =>
  error instanceof Error ? error.message : String(error);

/** Calls a function of the page's bench API with JSON arguments. */
export function pageCall<K extends keyof BenchPageApi>(
  page: Page,
  name: K,
  ...callArgs: Parameters<BenchPageApi[K]>
): Promise<Awaited<ReturnType<BenchPageApi[K]>>> {
  return page.evaluate(
    ([fn, a]) => (window.lmtabBench[fn] as (...x: unknown[]) => Promise<unknown>)(...a),
    [name, callArgs] as const,
  ) as Promise<Awaited<ReturnType<BenchPageApi[K]>>>;
}

/** Imports a model file into the page's IndexedDB unless that very file is there already. */
export async function ensureImported(
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

/** What the rows of one run share: the page, the settings, the relay, the texts per model. */
export interface Context {
  page: Page;
  settings: BenchSettings;
  browserPid: number | undefined;
  info: PageInfo;
  relayUrl: string;
  relayConnected: boolean;
  texts: Map<string, WordTexts>;
  /** Whether engine rows also time chat turns (`--no-chat` turns them off). */
  chat: boolean;
}

/** The word texts of a model, made once per run. */
export const textsFor = (ctx: Context, model: BenchModelFile) => {
  let texts = ctx.texts.get(model.id);
  if (!texts) ctx.texts.set(model.id, (texts = new WordTexts(model.words)));
  return texts;
};

/** Samples the browser's peak memory from now until `stop`. */
export function memory(ctx: Context) {
  if (ctx.browserPid === undefined) return { stop: () => ({}), loaded: () => ({}) };
  const pid = ctx.browserPid;
  const baseline = treeRssParts(pid);
  const sampler = samplePeakRss(pid, 500);
  const inMib = (parts: RssParts) => ({
    anonMiB: mib(parts.anon),
    fileMiB: mib(parts.file),
    shmemMiB: mib(parts.shmem),
    anonByTypeMiB: Object.fromEntries(
      Object.entries(parts.anonByType).map(([type, bytes]) => [type, mib(bytes)]),
    ),
  });
  return {
    /** Call once a model is loaded, before any request: the load's own peak and what it left. */
    loaded: () => {
      const { peak, total } = sampler.now();
      return { loadPeakMemoryMiB: mib(peak), loadedMemoryMiB: mib(total) };
    },
    stop: () => {
      const { peak, parts } = sampler.stopWithParts();
      return {
        peakMemoryMiB: mib(peak),
        baselineMemoryMiB: mib(baseline.anon + baseline.file + baseline.shmem),
        // VmRSS by kind: anonymous (the engine's heap), file-backed (mapped files, page cache the
        // kernel can drop), shared memory. At the peak, and before loading.
        peakMemoryParts: inMib(parts),
        baselineMemoryParts: inMib(baseline),
      };
    },
  };
}
