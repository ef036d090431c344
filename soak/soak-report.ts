import type { SoakResult } from './soak-traffic.js';

/** Resident memory at one moment of the soak. */
export interface MemorySample {
  /** Seconds since the soak began. */
  seconds: number;
  /** The relay process (0 while it restarts). */
  relayMiB: number;
  /** The engine tab's renderer, the largest of the headless browser (0 while none runs). */
  rendererMiB: number;
}

/** Something the soak did to the system under test. */
export interface SoakEvent {
  seconds: number;
  what: string;
}

/** The whole soak: counts by outcome, every request, the events and the memory samples. */
export interface SoakReport {
  minutes: number;
  clients: number;
  sent: number;
  answered: number;
  failed: number;
  refused: number;
  cut: number;
  lost: number;
  results: SoakResult[];
  events: SoakEvent[];
  samples: MemorySample[];
}

/** The median of some numbers (0 for none). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * How memory moved after warm-up (the first quarter of the run): the median of the second
 * quarter against the median of the last, per process; restarts show as zeros and are skipped.
 */
export function memoryTrend(samples: MemorySample[], key: 'relayMiB' | 'rendererMiB'): string {
  const live = samples.filter((sample) => sample[key] > 0);
  if (live.length < 8) return 'too few samples';
  const quarter = Math.floor(live.length / 4);
  const early = median(live.slice(quarter, 2 * quarter).map((s) => s[key]));
  const late = median(live.slice(3 * quarter).map((s) => s[key]));
  const change = late - early;
  return `${early} MiB after warm-up, ${late} MiB at the end (${change >= 0 ? '+' : ''}${change} MiB)`;
}

/** The soak's report for people: counts, counts by kind, events, memory over time. */
export function formatReport(report: SoakReport): string {
  const kinds = [...new Set(report.results.map((r) => r.kind))];
  const byKind = kinds.map((kind) => {
    const mine = report.results.filter((r) => r.kind === kind);
    const of = (outcome: string) => mine.filter((r) => r.outcome === outcome).length;
    return `  ${kind.padEnd(17)} ${String(mine.length).padStart(5)} sent, ${of('answered')} answered, ${of('failed')} failed, ${of('refused')} refused, ${of('cut')} cut, ${of('lost')} lost`;
  });
  const failures = [
    ...new Set(report.results.filter((r) => r.outcome === 'failed').map((r) => r.detail ?? '')),
  ]
    .slice(0, 8)
    .map((detail) => `  - ${detail.slice(0, 200)}`);
  const lost = report.results
    .filter((r) => r.outcome === 'lost')
    .slice(0, 8)
    .map((r) => `  - ${r.kind}: ${r.detail ?? ''}`);
  const every = Math.max(1, Math.round(report.samples.length / 24));
  const memory = report.samples
    .filter((_, i) => i % every === 0)
    .map(
      (s) =>
        `  ${String(s.seconds).padStart(5)} s  relay ${String(s.relayMiB).padStart(4)} MiB  renderer ${String(s.rendererMiB).padStart(5)} MiB`,
    );
  return [
    `soak: ${report.minutes} min, ${report.clients} clients`,
    `requests: ${report.sent} sent, ${report.answered} answered, ${report.failed} failed with a clear error, ${report.refused} refused while the relay restarted, ${report.cut} cut by the client on purpose, ${report.lost} lost`,
    'by kind:',
    ...byKind,
    ...(failures.length > 0 ? ['clear errors seen:', ...failures] : []),
    ...(lost.length > 0 ? ['lost:', ...lost] : []),
    'events:',
    ...report.events.map((e) => `  ${String(e.seconds).padStart(5)} s  ${e.what}`),
    'memory:',
    ...memory,
    `relay: ${memoryTrend(report.samples, 'relayMiB')}`,
    `renderer: ${memoryTrend(report.samples, 'rendererMiB')} (a killed renderer starts afresh)`,
  ].join('\n');
}
