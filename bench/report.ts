import { embeddingTable } from './embeddings.js';
import type { BenchResults, EngineRow } from './results.js';
import type { Figure } from './stats.js';
import { nativeFor, oneClient } from './targets.js';

const speed = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const duration = (ms: number) =>
  ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
const ratio = (value: number, base: number | undefined) =>
  base === undefined || !Number.isFinite(value / base) ? '' : ` · ${(value / base).toFixed(2)}×`;

/** `median (min–max)`, or the median alone for one run. */
function cell(
  figure: Figure | undefined,
  format: (value: number) => string,
  base?: Figure,
): string {
  if (!figure) return '–';
  const spread = figure.runs.length > 1 ? ` (${format(figure.min)}–${format(figure.max)})` : '';
  return `${format(figure.median)}${spread}${ratio(figure.median, base?.median)}`;
}

const modelLabel = (row: EngineRow) => `${row.size} ${row.quant ?? 'Q8_0'}`;

function engineLabel(row: EngineRow): string {
  const path = row.backend === 'cpu' ? 'CPU' : row.backend === 'wasm' ? 'WASM' : 'WebGPU';
  return `${row.engine} | ${path} | ${row.threads}`;
}

function engineTable(results: BenchResults): string {
  const lines = [
    '| model | engine | path | threads | prompt tok/s | decode tok/s | TTFT turn 1 | TTFT last turn | last turn from scratch | load | peak memory |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of results.engines) {
    const native =
      row.engine === 'llama.cpp (native)' ? undefined : nativeFor(results.engines, row);
    if (!row.available) {
      lines.push(
        // One line a row: a page error's message carries its stack on the lines after.
        `| ${modelLabel(row)} | ${engineLabel(row)} | not available: ${(row.reason ?? '').split('\n')[0]} |||||||`,
      );
      continue;
    }
    const ttft = (f: Figure | undefined, n: Figure | undefined) =>
      row.streams === false ? `${cell(f, duration, n)} (no streaming)` : cell(f, duration, n);
    const memory =
      row.peakMemoryMiB === undefined
        ? '–'
        : `${row.peakMemoryMiB.toFixed(0)} MiB${row.baselineMemoryMiB === undefined ? '' : ` (${row.baselineMemoryMiB.toFixed(0)} before load)`}`;
    lines.push(
      [
        '',
        modelLabel(row),
        engineLabel(row),
        cell(row.promptTokS, speed, native?.promptTokS),
        cell(row.decodeTokS, speed, native?.decodeTokS),
        ttft(row.ttftTurn1Ms, native?.ttftTurn1Ms),
        ttft(row.ttftLastTurnMs, native?.ttftLastTurnMs),
        ttft(row.ttftLastTurnColdMs, native?.ttftLastTurnColdMs),
        `${cell(row.loadMs, duration)} ${row.loadFrom ? `(${row.loadFrom})` : ''}`.trim(),
        memory,
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  return lines.join('\n');
}

function transportTable(results: BenchResults): string {
  const lines = [
    '| model | path | threads | decode tok/s (client) | TTFT (client) |',
    '|---|---|---|---|---|',
  ];
  for (const row of results.transport) {
    const base = results.transport.find(
      (r) => r.path === 'direct engine call' && r.size === row.size && r.threads === row.threads,
    );
    const direct = row === base ? undefined : base;
    lines.push(
      row.available
        ? `| ${row.size} | ${row.path} | ${row.threads} | ${cell(row.decodeTokS, speed, direct?.decodeTokS)} | ${cell(row.ttftMs, duration)}${direct?.ttftMs && row.ttftMs ? ` · ${row.ttftMs.median - direct.ttftMs.median >= 0 ? '+' : '−'}${Math.abs(row.ttftMs.median - direct.ttftMs.median).toFixed(0)} ms` : ''} |`
        : `| ${row.size} | ${row.path} | ${row.threads} | not measured: ${row.reason ?? ''} ||`,
    );
  }
  return lines.join('\n');
}

function concurrencyTable(results: BenchResults): string {
  const lines = ['| model | via | threads | clients | aggregate tok/s |', '|---|---|---|---|---|'];
  for (const row of results.concurrency) {
    const one = oneClient(results.concurrency, row);
    const model = `${row.size} ${row.quant ?? 'Q8_0'}`;
    lines.push(
      row.available
        ? `| ${model} | ${row.via} | ${row.threads} | ${row.clients} | ${cell(row.aggregateTokS, speed, row.clients === 1 ? undefined : one?.aggregateTokS)} |`
        : `| ${model} | ${row.via} | ${row.threads} | ${row.clients} | not measured: ${row.reason ?? ''} |`,
    );
  }
  return lines.join('\n');
}

function targetTable(results: BenchResults): string {
  const lines = ['| target | measured | met |', '|---|---|---|'];
  for (const check of results.targets) {
    const met = check.met === undefined ? 'not measured' : check.met ? 'yes' : '**no**';
    lines.push(`| ${check.target} | ${check.measured} | ${met} |`);
  }
  return lines.join('\n');
}

/** One line naming the machine and the run. */
export function machineLine(results: BenchResults): string {
  const m = results.machine;
  const when =
    results.runs && results.runs.length > 1
      ? `joined from ${results.runs.length} runs: ${results.runs
          .map(
            (run) =>
              `${run.sizes.join(' and ')} ${run.transports ? 'engines, transports and clients' : 'engines'} (${run.startedAt.slice(0, 16).replace('T', ' ')} UTC, load average ${run.loadAverage.toFixed(2)} at the start)`,
          )
          .join('; ')}`
      : `load average ${m.loadAverage.toFixed(2)} at the start; ${results.finishedAt.slice(0, 10)}`;
  const native = results.native
    ? `; native reference: llama.cpp ${results.native.commit.slice(0, 7)} (${results.native.source}) built here by ${results.native.compiler}, ${results.native.flags}; CPU features ${results.native.cpuFeatures.join(' ')}`
    : '';
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.os}; Node ${m.node}; ${m.browser} headless; ${when}${native}${results.settings.quick ? '; **quick mode: tiny model, 1 run, short generations: not a measurement**' : ''}.`;
}

/** The settings in words. */
function settingsLine(results: BenchResults): string {
  const s = results.settings;
  return `Each figure is the median of ${s.runs} run${s.runs === 1 ? '' : 's'} (min–max in parentheses). Prompt: ${s.promptTokens}-token raw prompt; decode: ${s.decodeTokens} tokens, end-of-sequence ignored, greedy; chat: ${s.turns} turns of ${s.userMessageTokens}-token user messages and ${s.replyTokens}-token answers; transport: ${s.transportPromptTokens}-token message, ${s.transportDecodeTokens}-token answer, ${s.transportRuns} runs; concurrency: ${s.clientTokens}-token answers; context ${s.contextLength}. "N×" is the figure divided by native llama.cpp's (same file, same threads), or by the direct call's / one client's.`;
}

/** The tables docs/performance.md shows: engines, transports, concurrency, targets. */
export function renderTables(results: BenchResults): string {
  return [
    engineTable(results),
    '',
    transportTable(results),
    '',
    concurrencyTable(results),
    '',
    targetTable(results),
  ].join('\n');
}

/** `bench/results/latest.md`: every table, the engine choice, and what was not measured. */
export function renderMarkdown(results: BenchResults): string {
  const checks = results.engineChoice.checks
    .map(
      (c) =>
        `| ${c.need} | ${c.supported ? 'yes' : '**no**'} | ${c.evidence.replaceAll('|', '\\|')} |`,
    )
    .join('\n');
  return [
    '# lmtab benchmark',
    '',
    `Machine: ${machineLine(results)}`,
    '',
    settingsLine(results),
    `Peak memory: ${results.memoryMethod}`,
    '',
    '## Engines',
    '',
    engineTable(results),
    '',
    '## Transports (client-side timing)',
    '',
    transportTable(results),
    '',
    '## Concurrent clients',
    '',
    concurrencyTable(results),
    '',
    '## Embeddings',
    '',
    embeddingTable(results.embeddings),
    '',
    '## Targets',
    '',
    targetTable(results),
    '',
    "## Engine choice: node-llama-wasm against lmtab's needs",
    '',
    '| need | supported | evidence |',
    '|---|---|---|',
    checks,
    '',
    results.engineChoice.verdict,
    '',
    '## Not measured',
    '',
    ...results.notMeasured.map((n) => `- ${n.what}: ${n.why}`),
    '',
    'Why targets are missed, and what the figures mean: [bench/NOTES.md](../NOTES.md).',
    '',
  ].join('\n');
}

/** The page the bench writes its tables into, relative to the repository's root. */
export const performancePage = 'docs/performance.md';

/**
 * Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in a docs page (the
 * bench's is {@link performancePage}); `name` defaults to `bench` (the CPU bench's section; the GPU
 * bench's is `bench-gpu`).
 */
export function replaceDocSection(page: string, section: string, name = 'bench'): string {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const from = page.indexOf(begin);
  const to = page.indexOf(end);
  if (from < 0 || to < from) {
    throw new Error(`expected a ${begin} ... ${end} section in the page, found none`);
  }
  return `${page.slice(0, from + begin.length)}\n\n${section}\n\n${page.slice(to)}`;
}
