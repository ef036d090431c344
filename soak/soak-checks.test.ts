import { describe, expect, it } from 'vitest';
import { soakChecks } from './soak-checks.js';
import {
  outcomeCounts,
  type MemorySample,
  type SoakEvent,
  type SoakReport,
} from './soak-report.js';
import { faultGapMs, faultPlan, quietTailMs } from './soak-schedule.js';
import type { Outcome, SoakResult } from './soak-traffic.js';

const kinds = ['chat', 'embeddings', 'disconnect', 'models'];
const modelKinds = ['chat', 'embeddings', 'disconnect'];
const trafficMs = 120_000;

const goodEvents: SoakEvent[] = [
  { ms: 24_000, type: 'renderer-killed', what: 'renderer 11 killed (400 MiB)' },
  { ms: 72_000, type: 'relay-stopping', what: 'relay 10 sent SIGTERM' },
  { ms: 73_000, type: 'relay-stopped', what: 'relay 10 exited' },
  { ms: 76_000, type: 'relay-listening', what: 'relay 12 listening (was 10)' },
];

/** A good run's outcome: the requests in flight at the kill fail, the relay refuses while down. */
function goodOutcome(kind: string, sentMs: number): Outcome {
  if (sentMs >= 23_500 && sentMs < 27_000 && kind !== 'models') return 'failed';
  if (sentMs >= 72_000 && sentMs < 76_000) return 'refused';
  return kind === 'disconnect' ? 'cut' : 'answered';
}

/** A made-up 2-minute soak: a request every 500 ms, each taking 800 ms; memory every 5 s. */
function soak(
  outcome: (kind: string, sentMs: number) => Outcome = goodOutcome,
  changes: Partial<SoakReport> = {},
): SoakReport {
  const results: SoakResult[] = [];
  for (let sentMs = 0, i = 0; sentMs < trafficMs; sentMs += 500, i++) {
    const kind = kinds[i % kinds.length]!;
    results.push({ kind, outcome: outcome(kind, sentMs), sentMs, ms: 800 });
  }
  const samples: MemorySample[] = Array.from({ length: 24 }, (_, i) => ({
    seconds: (i + 1) * 5,
    relayMiB: 120,
    rendererMiB: 400,
  }));
  return {
    minutes: 2,
    clients: 3,
    trafficMs,
    kinds,
    modelKinds,
    plan: { killsMs: [24_000], restartMs: 72_000 },
    ...outcomeCounts(results),
    results,
    events: goodEvents,
    samples,
    ...changes,
  };
}

/** The names of the checks that failed. */
function failing(report: SoakReport): string[] {
  return soakChecks(report)
    .filter((check) => !check.passed)
    .map((check) => check.name);
}

describe('soakChecks', () => {
  it('passes a run whose faults happened, recovered and left memory in bounds', () => {
    const checks = soakChecks(soak());
    expect(checks.filter((c) => !c.passed)).toEqual([]);
    expect(checks.map((c) => c.figure)).toEqual([
      '0 of 200 requests (0.0%, under 5.0% allowed); windows 24.0 s to 32.8 s, 72.0 s to 81.8 s',
      "8 refused, 0 outside the relay's down time (+1.0 s)",
      'renderer kill at 24.0 s: all 4 kinds by +5.3 s; relay restart at 72.0 s: all 4 kinds by +6.3 s',
      "relay 120 MiB (at most 256), renderer 400 MiB (at most 1024); the median of the last quarter's samples",
      '1 of 1 renderer kills, the relay restarted (down 4.0 s)',
      '0 lost, 170 answered',
    ]);
  });

  it('fails a run in which every generation after the kill answers a clean 500', () => {
    const generations = ['chat', 'disconnect'];
    const broken = (kind: string, sentMs: number) =>
      sentMs >= 24_000 && generations.includes(kind) ? 'failed' : goodOutcome(kind, sentMs);
    expect(failing(soak(broken))).toEqual([
      'clean failures outside the fault windows',
      'every kind answered after each fault',
    ]);
    expect(soakChecks(soak(broken))[2]!.figure).toBe(
      'renderer kill at 24.0 s: never answered again: chat, disconnect; relay restart at 72.0 s: never answered again: chat, disconnect',
    );
  });

  it('fails a run in which no model answers after the kill', () => {
    const broken = (kind: string, sentMs: number) =>
      sentMs >= 24_000 && modelKinds.includes(kind) ? 'failed' : goodOutcome(kind, sentMs);
    expect(failing(soak(broken))).toEqual([
      'clean failures outside the fault windows',
      'every kind answered after each fault',
    ]);
  });

  it('fails a run whose engine comes back only at the relay restart', () => {
    const broken = (kind: string, sentMs: number) =>
      sentMs >= 24_000 && sentMs < 72_000 && modelKinds.includes(kind)
        ? 'failed'
        : goodOutcome(kind, sentMs);
    expect(failing(soak(broken))).toEqual([
      'clean failures outside the fault windows',
      'every kind answered after each fault',
    ]);
  });

  it('fails a run whose relay never comes back after its restart', () => {
    const events: SoakEvent[] = [
      ...goodEvents.slice(0, 3),
      { ms: 139_000, type: 'relay-restart-failed', what: 'starting the relay again: no /health' },
    ];
    const report = soak(
      (kind, sentMs) => (sentMs >= 72_000 ? 'refused' : goodOutcome(kind, sentMs)),
      {
        events,
        samples: soak().samples.map((s) =>
          s.seconds > 72 ? { ...s, relayMiB: 0, rendererMiB: 0 } : s,
        ),
      },
    );
    expect(failing(report)).toEqual([
      'every kind answered after each fault',
      'memory at the end',
      'faults injected',
    ]);
    expect(soakChecks(report)[4]!.figure).toContain('the relay never listened again');
  });

  it('fails a run refused outside the relay restart', () => {
    const stray = (kind: string, sentMs: number) =>
      sentMs >= 20_000 && sentMs < 21_000 ? 'refused' : goodOutcome(kind, sentMs);
    expect(failing(soak(stray))).toEqual(['refusals only while the relay was down']);
    expect(soakChecks(soak(stray))[1]!.figure).toBe(
      "10 refused, 2 outside the relay's down time (+1.0 s), the first at 20.0 s",
    );
  });

  it('fails a run refused a few seconds after the relay listened again', () => {
    const late = (kind: string, sentMs: number) =>
      sentMs >= 72_000 && sentMs < 80_000 ? 'refused' : goodOutcome(kind, sentMs);
    expect(failing(soak(late))).toContain('refusals only while the relay was down');
  });

  it('fails a run in which no fault was injected', () => {
    const calm = (kind: string) => (kind === 'disconnect' ? 'cut' : 'answered');
    expect(failing(soak(calm, { events: [] }))).toEqual([
      'every kind answered after each fault',
      'faults injected',
    ]);
  });

  it('fails a run whose renderer kill did not happen, by name', () => {
    const events: SoakEvent[] = [
      { ms: 24_000, type: 'renderer-kill-missed', what: 'no engine renderer found' },
      ...goodEvents.slice(1),
    ];
    const report = soak(goodOutcome, { events });
    expect(failing(report)).toEqual(['faults injected']);
    expect(soakChecks(report)[4]!.figure).toBe(
      '0 of 1 renderer kills, the relay restarted (down 4.0 s); at 24.0 s: no engine renderer found; 1 planned kills not done',
    );
  });

  it('fails a run whose relay had to be killed at its restart', () => {
    const events: SoakEvent[] = [
      ...goodEvents.slice(0, 2),
      { ms: 92_000, type: 'relay-restart-failed', what: 'relay 10 did not exit within 20 s' },
      { ms: 95_000, type: 'relay-listening', what: 'relay 12 listening (was 10)' },
    ];
    expect(failing(soak(goodOutcome, { events }))).toContain('faults injected');
  });

  it('fails a run whose memory ends over its bounds, not one that only peaked early', () => {
    const grown = soak().samples.map((s) => (s.seconds >= 90 ? { ...s, rendererMiB: 1500 } : s));
    expect(failing(soak(goodOutcome, { samples: grown }))).toEqual(['memory at the end']);
    const relay = soak().samples.map((s) => (s.seconds >= 90 ? { ...s, relayMiB: 300 } : s));
    expect(failing(soak(goodOutcome, { samples: relay }))).toEqual(['memory at the end']);
    const peak = soak().samples.map((s) => (s.seconds === 30 ? { ...s, rendererMiB: 1500 } : s));
    expect(failing(soak(goodOutcome, { samples: peak }))).toEqual([]);
  });

  it('fails a run that lost a request', () => {
    const lost = (kind: string, sentMs: number) =>
      sentMs === 10_000 ? 'lost' : goodOutcome(kind, sentMs);
    expect(failing(soak(lost))).toEqual(['no request lost']);
  });
});

describe('faultPlan', () => {
  it('kills the renderer at 24 s and restarts the relay at 72 s in a 2-minute soak', () => {
    expect(faultPlan(120_000)).toEqual({ killsMs: [24_000], restartMs: 72_000 });
  });

  it('kills every 3 minutes from 9 minutes on, none near the restart', () => {
    expect(faultPlan(30 * 60_000)).toEqual({
      killsMs: [180_000, 360_000, 540_000, 720_000, 900_000, 1_260_000, 1_440_000, 1_620_000],
      restartMs: 1_080_000,
    });
    expect(faultPlan(9 * 60_000)).toEqual({ killsMs: [180_000], restartMs: 324_000 });
  });

  it('fits a kill and the restart, each with quiet time after, in any soak from 2 minutes', () => {
    for (let seconds = 120; seconds <= 3600; seconds += 7) {
      const durationMs = seconds * 1000;
      const plan = faultPlan(durationMs);
      const faults = [...plan.killsMs, plan.restartMs].sort((a, b) => a - b);
      expect(plan.killsMs.length).toBeGreaterThan(0);
      expect(faults.at(-1)!).toBeLessThanOrEqual(durationMs - quietTailMs);
      for (const kill of plan.killsMs) {
        expect(Math.abs(kill - plan.restartMs)).toBeGreaterThanOrEqual(faultGapMs);
      }
    }
  });

  it('keeps to --kill-every, dropping kills that would not fit', () => {
    expect(faultPlan(120_000, 24_000)).toEqual({ killsMs: [24_000], restartMs: 72_000 });
    expect(faultPlan(120_000, 50_000).killsMs).toEqual([]);
  });
});
