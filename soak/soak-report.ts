import type { FaultPlan } from './soak-schedule.js';
import type { SoakResult } from './soak-traffic.js';

/** One named check of a soak (soak-checks.ts): whether it passed and the figure it judged. */
export interface SoakCheck {
  name: string;
  passed: boolean;
  figure: string;
}

/** Resident memory at one moment of the soak. */
export interface MemorySample {
  /** Seconds since the traffic began. */
  seconds: number;
  /** The relay process (0 while it restarts). */
  relayMiB: number;
  /** The engine tab's renderer, the largest of the headless browser (0 while none runs). */
  rendererMiB: number;
}

/**
 * What the soak did to the system under test: a renderer killed (or a planned kill that did not
 * happen, and why), the relay sent SIGTERM, gone, listening again, or a restart that failed.
 */
export type SoakEventType =
  | 'renderer-killed'
  | 'renderer-kill-missed'
  | 'relay-stopping'
  | 'relay-stopped'
  | 'relay-listening'
  | 'relay-restart-failed';

/** Something the soak did to the system under test, and when. */
export interface SoakEvent {
  /** Milliseconds since the traffic began. */
  ms: number;
  type: SoakEventType;
  /** The same for people (pids, sizes, why a fault did not happen). */
  what: string;
}

/** The whole soak: counts by outcome, every request, the events and the memory samples. */
export interface SoakReport {
  minutes: number;
  clients: number;
  /** How long the clients sent requests, in milliseconds (the last answers come a little later). */
  trafficMs: number;
  /** Every kind of request the clients send, and those that run a model (generate or embed). */
  kinds: string[];
  modelKinds: string[];
  /** The faults the soak meant to inject, in milliseconds since the traffic began. */
  plan: FaultPlan;
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

/** The report's counts of its results: how many were sent, and how many ended each way. */
export function outcomeCounts(
  results: SoakResult[],
): Pick<SoakReport, 'sent' | 'answered' | 'failed' | 'refused' | 'cut' | 'lost'> {
  const count = (outcome: SoakResult['outcome']) =>
    results.filter((r) => r.outcome === outcome).length;
  return {
    sent: results.length,
    answered: count('answered'),
    failed: count('failed'),
    refused: count('refused'),
    cut: count('cut'),
    lost: count('lost'),
  };
}

/** Which process a memory figure is of. */
export type MemoryKey = 'relayMiB' | 'rendererMiB';

/** The median of some numbers (0 for none). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
}

/** A process's live samples (restarts show as zeros and are skipped). */
function liveMiB(samples: MemorySample[], key: MemoryKey): number[] {
  return samples.map((sample) => sample[key]).filter((value) => value > 0);
}

/**
 * A process's memory at the end of the soak: the median of its live samples in the last quarter
 * of the traffic (a renderer's size swings by hundreds of MiB from one 5 s sample to the next), or
 * undefined when it has none there (it was gone).
 */
export function memoryAtEnd(report: SoakReport, key: MemoryKey): number | undefined {
  const late = report.samples.filter((sample) => sample.seconds * 1000 >= 0.75 * report.trafficMs);
  const live = liveMiB(late, key);
  return live.length === 0 ? undefined : median(live);
}

/**
 * How memory moved after warm-up (the first quarter of the run): the median of the second
 * quarter against the median of the last, per process.
 */
export function memoryTrend(samples: MemorySample[], key: MemoryKey): string {
  const live = liveMiB(samples, key);
  if (live.length < 8) return 'too few samples';
  const quarter = Math.floor(live.length / 4);
  const early = median(live.slice(quarter, 2 * quarter));
  const late = median(live.slice(3 * quarter));
  const change = late - early;
  return `${early} MiB after warm-up, ${late} MiB at the end (${change >= 0 ? '+' : ''}${change} MiB)`;
}

/** The soak's report for people: counts, counts by kind, events, memory over time, the checks. */
export function formatReport(report: SoakReport, checks: SoakCheck[]): string {
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
    ...report.events.map((e) => `  ${(e.ms / 1000).toFixed(1).padStart(7)} s  ${e.what}`),
    'memory:',
    ...memory,
    `relay: ${memoryTrend(report.samples, 'relayMiB')}`,
    `renderer: ${memoryTrend(report.samples, 'rendererMiB')} (a killed renderer starts afresh)`,
    'checks:',
    ...checks.map((c) => `  ${c.passed ? 'pass' : 'FAIL'}  ${c.name}: ${c.figure}`),
  ].join('\n');
}
