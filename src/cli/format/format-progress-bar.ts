import { formatSize } from './format-size.js';

/** Terminal columns when the terminal does not say. */
export const defaultColumns = 80;

/** Options of {@link formatProgressBar}. */
export interface ProgressBarOptions {
  /** What is moving, e.g. `pulling 4f1b6c3d9a2e`. */
  label: string;
  /** Bytes done. */
  completed: number;
  /** Bytes in all; 0 when unknown. */
  total: number;
  /** Columns the line may use; default {@link defaultColumns}. */
  columns?: number;
  /** Bytes per second lately, shown with the time left when known; default none. */
  rate?: number;
}

const tailRoom = 32;

/**
 * One line of progress in Ollama's manner:
 * `pulling 4f1b6c3d9a2e:  45% ▕███████         ▏ 104 MB/229 MB  12 MB/s  10s`.
 */
export function formatProgressBar(options: ProgressBarOptions): string {
  const { label, completed, total } = options;
  const columns = options.columns ?? defaultColumns;
  const fraction = total > 0 ? Math.min(1, Math.max(0, completed / total)) : 0;
  const percent = `${String(Math.floor(fraction * 100)).padStart(3)}%`;
  const done = total > 0 && completed >= total;
  let tail = done ? formatSize(total) : `${formatSize(completed)}/${formatSize(total)}`;
  const rate = options.rate ?? 0;
  if (!done && rate > 0) {
    tail += `  ${formatSize(rate)}/s  ${formatDuration((total - completed) / rate)}`;
  }
  // Room is kept for the longest tail, so the bar keeps its width as the numbers change.
  const barWidth = Math.max(10, Math.min(50, columns - `${label}: 100% ▕▏ `.length - tailRoom));
  const filled = Math.round(fraction * barWidth);
  const bar = '█'.repeat(filled) + ' '.repeat(barWidth - filled);
  return `${label}: ${percent} ▕${bar}▏ ${tail}`;
}

/** Seconds as Go prints a rounded duration: `45s`, `1m52s`, `2h3m0s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h${m}m${rest}s`;
  if (m > 0) return `${m}m${rest}s`;
  return `${rest}s`;
}
