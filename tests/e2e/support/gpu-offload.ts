import { expect, type Page } from '@playwright/test';
import type { EngineStatusBody, LoadedModelBody } from '../../../src/api/index.js';
import { notOnGpu, readOffload, type OffloadReport } from '../../support/webgpu/offload-report.js';

/** What `GET /api/lmtab/engine` answers in `page`, through its service worker. */
export function engineStatus(page: Page): Promise<EngineStatusBody> {
  return page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
}

/** Options of {@link expectOnGpu}. */
export interface OnGpuOptions {
  /**
   * Graph splits allowed at most: 2 for a text model (the token lookup on the CPU, then the whole
   * model on WebGPU; more means ops falling back to the CPU); default no check.
   */
  splits?: number;
}

/**
 * Asserts, from llama.cpp's own log lines of `model`'s load (kept whole by the engine, in
 * `GET /api/lmtab/engine`), that llama.cpp's WebGPU backend opened lavapipe and offloaded every
 * layer: a model that landed on the CPU fails here, whatever it answered. Answers the report.
 */
export async function expectOnGpu(
  page: Page,
  model: string,
  options: OnGpuOptions = {},
): Promise<{ report: OffloadReport; loaded: LoadedModelBody }> {
  const status = await engineStatus(page);
  const loaded = status.loaded.find((m) => m.model === model);
  if (!loaded) {
    throw new Error(
      `expected ${model} loaded, the engine holds ${status.loaded.map((m) => m.model).join(', ') || 'nothing'}`,
    );
  }
  const lines = loaded.info.backendLines ?? [];
  const report = readOffload(lines);
  expect(notOnGpu(report), `${model}'s backend lines:\n${lines.join('\n')}`).toBeUndefined();
  expect(report.adapter).toMatchObject({ vendor: 'mesa', architecture: 'software' });
  expect(loaded.info).toMatchObject({ backend: 'webgpu', gpuLayers: report.layers?.total });
  if (options.splits !== undefined) {
    expect(report.graph?.splits, lines.join('\n')).toBeLessThanOrEqual(options.splits);
  }
  return { report, loaded };
}
