import { LmtabError } from '../errors/index.js';

const durationPattern = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/**
 * Parses a duration in whole seconds: `"600s"`, `"5m"`, `"1h30m"`, `"2h"`, or a number of seconds.
 * Units are h, m and s (Go's spelling, which Knative annotations also use); `field` names the option
 * in error messages. Throws `invalid_request` for anything else, negative values included.
 */
export function parseDuration(value: string | number, field = 'duration'): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return value;
    throw new LmtabError(
      'invalid_request',
      `${field}: expected a whole number of seconds (0 or more) or a duration like "5m", got ${value}.`,
      { param: field },
    );
  }
  const text = value.trim();
  const match = durationPattern.exec(text);
  if (text === '' || match === null) {
    throw new LmtabError(
      'invalid_request',
      `${field}: expected a duration like "600s", "5m" or "1h30m" (units h, m, s; whole numbers), got ${JSON.stringify(value)}.`,
      { param: field },
    );
  }
  const [, hours, minutes, seconds] = match;
  return Number(hours ?? 0) * 3600 + Number(minutes ?? 0) * 60 + Number(seconds ?? 0);
}

/** Formats seconds the way Go prints durations, shortest form first: `300` -> `5m`, `5400` -> `1h30m`. */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return `${hours > 0 ? `${hours}h` : ''}${minutes > 0 ? `${minutes}m` : ''}${rest > 0 ? `${rest}s` : ''}`;
}
