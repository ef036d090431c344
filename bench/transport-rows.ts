// The paths to the engine (direct, service worker, relay) and many clients at once.
import { readErrorAnswer } from '../src/errors/index.js';
import type { GenerateSpec } from './generate-spec.js';
import { wireRequest } from './generate-spec.js';
import type { BenchModelFile } from './models.js';
import type { ConcurrencyRow, TransportRow } from './results.js';
import { perSecond, summarize } from './stats.js';
import {
  clientDecodeTokS,
  StreamClock,
  timeSseStream,
  type StreamTiming,
} from './stream-timing.js';
import { log, now, pageCall, textsFor, type Context } from './bench-context.js';

/** A streamed generation through the relay, timed on the client's clock. */
export async function relayFetch(relayUrl: string, spec: GenerateSpec): Promise<StreamTiming> {
  const { path, body } = wireRequest(spec);
  const clock = new StreamClock(now(), now);
  const response = await fetch(`${relayUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw await readErrorAnswer(response);
  return timeSseStream(response.body, clock);
}

/** Why relay rows are missing when the page could not join the relay. */
export const relayMissing = 'the bench page could not connect to the relay as its engine tab';

/** One generation's speed and first token through each path, the order rotated per run. */
export async function transportRows(
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

/** Aggregate tokens per second of several clients at once, through the relay and the service worker. */
export async function concurrencyRows(
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
