/** The faults a soak injects, in milliseconds from the start of its traffic. */
export interface FaultPlan {
  /** When the engine's renderer is killed (SIGKILL). */
  killsMs: number[];
  /** When the relay is stopped (SIGTERM) and started again. */
  restartMs: number;
}

/**
 * No fault this close to the end of the traffic, nor a renderer kill this close to the relay
 * restart: every kind must be answered again after each fault, before the next. On 2 cores shared
 * with two other busy jobs that took 28 to 41 s (the first answers 8 to 19 s after the fault, then
 * requests of 3 to 18 s each).
 */
export const quietTailMs = 45_000;

/** No renderer kill within this of the relay restart (see {@link quietTailMs}). */
export const faultGapMs = 45_000;

/** The shortest soak whose faults fit: one renderer kill, the restart and quiet time after each. */
export const shortestSoakMinutes = 2;

/** Renderer kills in a long soak (9 minutes or more) when `--kill-every` is not given. */
const longRunKillEveryMs = 180_000;

/**
 * When a soak of `durationMs` kills the renderer and restarts the relay: the restart at 60% of the
 * traffic (at most {@link quietTailMs} before its end); the renderer killed every `killEveryMs`
 * (default every 3 minutes from 9 minutes on, else once a fifth of the way in), skipping any
 * kill within {@link faultGapMs} of the restart or {@link quietTailMs} of the end. A 2-minute soak
 * kills at 24 s and restarts at 72 s, leaving each 48 s.
 */
export function faultPlan(durationMs: number, killEveryMs?: number): FaultPlan {
  const restartMs = Math.round(Math.min(durationMs * 0.6, durationMs - quietTailMs));
  const every = killEveryMs ?? (durationMs >= 9 * 60_000 ? longRunKillEveryMs : undefined);
  const candidates =
    every === undefined
      ? [Math.round(durationMs / 5)]
      : Array.from({ length: Math.floor(durationMs / every) }, (_, i) =>
          Math.round((i + 1) * every),
        );
  const killsMs = candidates.filter(
    (ms) => ms <= durationMs - quietTailMs && Math.abs(ms - restartMs) >= faultGapMs,
  );
  return { killsMs, restartMs };
}
