import type { BenchResults, EngineRow, RunSummary } from './results.js';
import { checkTargets } from './targets.js';

function summary(results: BenchResults): RunSummary {
  return {
    startedAt: results.startedAt,
    finishedAt: results.finishedAt,
    loadAverage: results.machine.loadAverage,
    sizes: results.settings.sizes,
    transports: results.transport.length > 0,
  };
}

const rowKey = (row: EngineRow) =>
  `${row.size}|${row.quant}|${row.engine}|${row.backend}|${row.threads}`;
const byKey = <T>(items: T[], key: (item: T) => string) => [
  ...new Map(items.map((item) => [key(item), item])).values(),
];

/**
 * Joins a later run to an earlier results file (`npm run bench -- --add-to=FILE`): the later run's
 * engine rows replace the earlier rows of the same size, weight type, engine, path and threads and add the
 * others; transports, concurrent clients and the engine-choice checks come from the later run where
 * it measured them, else from the earlier one. Every engine row keeps the time of its own run, and
 * the targets are checked again on the joined figures.
 */
export function addRun(earlier: BenchResults, later: BenchResults): BenchResults {
  const stamp = (rows: EngineRow[], at: string) =>
    rows.map((row) => ({ ...row, measuredAt: row.measuredAt ?? at }));
  const fresh = stamp(later.engines, later.startedAt);
  const replaced = new Set(fresh.map(rowKey));
  const engines = [
    ...stamp(earlier.engines, earlier.startedAt).filter((row) => !replaced.has(rowKey(row))),
    ...fresh,
  ];
  const transport = later.transport.length > 0 ? later.transport : earlier.transport;
  const concurrency = later.concurrency.length > 0 ? later.concurrency : earlier.concurrency;
  const sizes = [...new Set([...earlier.settings.sizes, ...later.settings.sizes])];
  return {
    ...later,
    startedAt: earlier.startedAt,
    settings: { ...later.settings, sizes },
    runs: [...(earlier.runs ?? [summary(earlier)]), summary(later)],
    models: byKey([...earlier.models, ...later.models], (model) => `${model.size}|${model.quant}`),
    engines,
    transport,
    concurrency,
    engineChoice: later.engineChoice.checks.length > 0 ? later.engineChoice : earlier.engineChoice,
    targets: checkTargets({ engines, transport, concurrency }),
    notMeasured: byKey([...earlier.notMeasured, ...later.notMeasured], (item) => item.what),
  };
}
