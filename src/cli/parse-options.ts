import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../cloud/index.js';

/** Parses a port number (0 to 65535). */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError(`expected a port number from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** Parses a count (a whole number from 0 up). */
export function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) {
    throw new InvalidArgumentError(`expected a whole number from 0 up, got "${value}"`);
  }
  return Number(value);
}

const sizeUnits: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };

/** Parses a byte size: `1048576`, `512k`, `32m`, `32MiB`, `1g` (binary units). */
export function parseSize(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(value.trim());
  if (!match) {
    throw new InvalidArgumentError(
      `expected a size in bytes, optionally with k, m or g (e.g. 32m), got "${value}"`,
    );
  }
  return Math.floor(Number(match[1]) * sizeUnits[match[2].toLowerCase()]);
}

/** Writes a byte size as the flags take it, in the largest whole unit: `32m`, `64g`, `512k`. */
export function formatSizeFlag(bytes: number): string {
  const [unit, size] = Object.entries(sizeUnits)
    .reverse()
    .find(([, size]) => bytes % size === 0 && bytes >= size) ?? ['', 1];
  return `${bytes / size}${unit}`;
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses a duration in whole seconds: `90`, `90s`, `5m`, `1h30m`; at least one second. */
export function parseSeconds(value: string): number {
  const text = /^\d+$/.test(value.trim()) ? `${value.trim()}s` : value;
  let seconds: number;
  try {
    seconds = parseDuration(text);
  } catch {
    throw new InvalidArgumentError(
      `expected a duration such as 90, 90s, 5m or 1h30m (whole seconds), got "${value}"`,
    );
  }
  if (seconds < 1) throw new InvalidArgumentError(`expected at least 1 second, got "${value}"`);
  return seconds;
}
