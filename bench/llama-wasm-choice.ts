// Whether node-llama-wasm could replace wllama: its capabilities checked, and a verdict.
import type { BenchModelFile } from './models.js';
import type { CapabilityCheck } from './page/bench-api.js';
import type { EngineRow } from './results.js';
import { threadsLabel } from './stats.js';
import { log, pageCall, type Context } from './bench-context.js';

/** Checks node-llama-wasm's streaming, abort, parallel requests, chat templates and images. */
export async function probeLlamaWasm(
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

/** The engine choice in one paragraph, from the checks and the measured speeds. */
export function verdict(checks: CapabilityCheck[], engines: EngineRow[]): string {
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
