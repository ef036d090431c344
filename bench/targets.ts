import type { ConcurrencyRow, EngineRow, TargetCheck, TransportRow } from './results.js';
import { threadsLabel, type Figure } from './stats.js';

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const percent = (ratio: number) => `${ratio >= 1 ? '+' : '−'}${fixed(Math.abs(ratio - 1) * 100)}%`;

/** The native row an in-browser row compares with: same model and thread count. */
export function nativeFor(rows: EngineRow[], row: EngineRow): EngineRow | undefined {
  return rows.find(
    (r) =>
      r.engine === 'llama.cpp (native)' &&
      r.size === row.size &&
      (r.quant ?? 'Q8_0') === (row.quant ?? 'Q8_0') &&
      r.threads === row.threads,
  );
}

const median = (figure: Figure | undefined) => figure?.median;

/** Checks the targets against the figures; a target without figures is not met or missed. */
export function checkTargets(figures: {
  engines: EngineRow[];
  transport: TransportRow[];
  concurrency: ConcurrencyRow[];
}): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const direct = figures.transport.filter((t) => t.path === 'direct engine call');
  for (const row of figures.transport.filter((t) => t.path !== 'direct engine call')) {
    const base = direct.find((d) => d.size === row.size && d.threads === row.threads);
    const label = `${row.path} (${row.size}, ${threadsLabel(row.threads)})`;
    const decode = median(row.decodeTokS);
    const baseDecode = median(base?.decodeTokS);
    const ttft = median(row.ttftMs);
    const baseTtft = median(base?.ttftMs);
    if (!row.available || decode === undefined || baseDecode === undefined) {
      checks.push({
        target: `${label}: at most 3% fewer decode tokens/s than a direct engine call`,
        measured: `not measured: ${row.reason ?? 'no figures'}`,
      });
    } else {
      checks.push({
        target: `${label}: at most 3% fewer decode tokens/s than a direct engine call`,
        measured: `${fixed(decode)} against ${fixed(baseDecode)} tok/s (${percent(decode / baseDecode)})`,
        met: decode >= 0.97 * baseDecode,
      });
    }
    if (!row.available || ttft === undefined || baseTtft === undefined) {
      checks.push({
        target: `${label}: at most 20 ms more time to first token than a direct engine call`,
        measured: `not measured: ${row.reason ?? 'no figures'}`,
      });
    } else {
      const extra = ttft - baseTtft;
      checks.push({
        target: `${label}: at most 20 ms more time to first token than a direct engine call`,
        measured: `${fixed(ttft, 0)} against ${fixed(baseTtft, 0)} ms (${extra >= 0 ? '+' : '−'}${fixed(Math.abs(extra), 0)} ms)`,
        met: extra <= 20,
      });
    }
  }
  const inBrowser = (r: EngineRow) => r.engine === 'wllama' || r.engine === 'lmtab-cpu';
  for (const row of figures.engines.filter((r) => inBrowser(r) && r.available)) {
    const label = `${row.engine} ${row.backend} ${threadsLabel(row.threads)} (${row.size} ${row.quant ?? 'Q8_0'})`;
    const warm = median(row.ttftLastTurnMs);
    const cold = median(row.ttftLastTurnColdMs);
    if (warm !== undefined && cold !== undefined) {
      checks.push({
        target: `${label}: last-turn time to first token at least 5x faster than processing the whole conversation again`,
        measured: `${fixed(warm, 0)} ms against ${fixed(cold, 0)} ms from scratch (${fixed(cold / warm)}x faster)`,
        met: cold >= 5 * warm,
      });
    }
    const native = row.backend === 'wasm' ? nativeFor(figures.engines, row) : undefined;
    const decode = median(row.decodeTokS);
    const nativeDecode = median(native?.decodeTokS);
    if (native && decode !== undefined && nativeDecode !== undefined) {
      checks.push({
        target: `${label}: decode at least 45% of native llama.cpp (built here, -march=native) on the same file and thread count`,
        measured: `${fixed(decode)} against ${fixed(nativeDecode)} tok/s (${fixed((decode / nativeDecode) * 100, 0)}%)`,
        met: decode >= 0.45 * nativeDecode,
      });
    }
    const prompt = median(row.promptTokS);
    const nativePrompt = median(native?.promptTokS);
    if (native && prompt !== undefined && nativePrompt !== undefined) {
      checks.push({
        target: `${label}: prompt at least 15% of native llama.cpp on the same file and thread count`,
        measured: `${fixed(prompt)} against ${fixed(nativePrompt)} tok/s (${fixed((prompt / nativePrompt) * 100, 0)}%)`,
        met: prompt >= 0.15 * nativePrompt,
      });
    }
  }
  for (const row of figures.concurrency.filter((r) => r.clients === 4)) {
    const one = oneClient(figures.concurrency, row);
    const label = `4 concurrent clients through the ${row.via} (${row.size} ${row.quant ?? 'Q8_0'}, ${threadsLabel(row.threads)})`;
    const four = median(row.aggregateTokS);
    const single = median(one?.aggregateTokS);
    checks.push(
      four === undefined || single === undefined
        ? {
            target: `${label}: aggregate at least 1.5x one client's tokens/s`,
            measured: `not measured: ${row.reason ?? one?.reason ?? 'no figures'}`,
          }
        : {
            target: `${label}: aggregate at least 1.5x one client's tokens/s`,
            measured: `${fixed(four)} against ${fixed(single)} tok/s (${fixed(four / single, 2)}x)`,
            met: four >= 1.5 * single,
          },
    );
  }
  return checks;
}

/** The one-client row that `row` (more clients) is compared with: same path, file and threads. */
export function oneClient(rows: ConcurrencyRow[], row: ConcurrencyRow): ConcurrencyRow | undefined {
  return rows.find(
    (r) =>
      r.via === row.via &&
      r.size === row.size &&
      (r.quant ?? 'Q8_0') === (row.quant ?? 'Q8_0') &&
      r.threads === row.threads &&
      r.clients === 1,
  );
}
