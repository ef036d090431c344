import type { Page } from 'playwright-core';
import type { EngineInfoBody } from '../../api/wire.js';

/** The part of `GET /api/lmtab/engine` the line reads. */
export type EngineAdapterFacts = Partial<
  Pick<EngineInfoBody, 'backend' | 'fallbackReason' | 'gpu'>
>;

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20).toLocaleString('en')} MiB`;

/**
 * One line saying which WebGPU adapter a headless engine got and where its models run, e.g.
 * `headless engine's WebGPU adapter: nvidia ampere NVIDIA A10G (shader-f16: yes, maxBufferSize
 * 4,096 MiB); GGUF models run on WebGPU`, or that it has none and why.
 */
export function engineAdapterLine(facts: EngineAdapterFacts): string {
  const onCpu = `GGUF models run on the CPU${facts.fallbackReason ? `: ${facts.fallbackReason}` : ''}`;
  const gpu = facts.gpu;
  if (!gpu) return `headless engine has no WebGPU adapter; ${onCpu}`;
  const named = [gpu.vendor, gpu.architecture, gpu.description ?? gpu.device].filter((p) => p);
  const details = [`shader-f16: ${gpu.features.includes('shader-f16') ? 'yes' : 'no'}`];
  if (gpu.limits?.maxBufferSize !== undefined) {
    details.push(`maxBufferSize ${mib(gpu.limits.maxBufferSize)}`);
  }
  const where = facts.backend === 'webgpu' ? 'GGUF models run on WebGPU' : onCpu;
  return `headless engine's WebGPU adapter: ${named.length > 0 ? named.join(' ') : gpu.adapter} (${details.join(', ')}); ${where}`;
}

/** Options of {@link reportEngineAdapter}. */
export interface ReportEngineAdapterOptions {
  /** Told the line (or why the engine could not be asked). */
  log: (line: string) => void;
  /** Milliseconds to wait for the page to hold the engine; default 120000. */
  timeoutMs?: number;
}

/**
 * Once the engine page holds the engine, asks it (`GET /api/lmtab/engine`, through the page's own
 * service worker) which adapter it got, and logs {@link engineAdapterLine}. The page may reload
 * once or twice as it starts (cross-origin isolation, an update): a question cut off by a reload
 * is asked again.
 */
export async function reportEngineAdapter(
  page: Page,
  options: ReportEngineAdapterOptions,
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  let last: unknown;
  while (Date.now() < deadline && !page.isClosed()) {
    try {
      await page.waitForSelector('lmtab-app[data-engine-host]', {
        state: 'attached',
        timeout: Math.max(1, deadline - Date.now()),
      });
      const facts = await page.evaluate(async () => {
        const response = await fetch('/api/lmtab/engine');
        if (!response.ok) throw new Error(`GET /api/lmtab/engine answered ${response.status}`);
        return (await response.json()) as unknown;
      });
      options.log(engineAdapterLine(facts as EngineAdapterFacts));
      return;
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  if (page.isClosed()) return;
  const why = last instanceof Error ? last.message.split('\n')[0] : String(last ?? 'timed out');
  options.log(`could not ask the headless engine which WebGPU adapter it got: ${why}`);
}
