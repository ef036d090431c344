/** One benchmark figure: the median of its runs, with the spread. */
export interface Figure {
  median: number;
  min: number;
  max: number;
  /** Every run's value, in the order measured. */
  runs: number[];
}

/** Summarizes runs as median, min and max; undefined when there is no run. */
export function summarize(runs: number[]): Figure | undefined {
  const valid = runs.filter((r) => Number.isFinite(r));
  if (valid.length === 0) return undefined;
  const sorted = [...valid].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, runs: valid };
}

/** Tokens per second of `tokens` produced in `ms` milliseconds. */
export function perSecond(tokens: number, ms: number): number {
  return ms > 0 ? (tokens * 1000) / ms : NaN;
}

/** `1 thread`, `2 threads`. */
export function threadsLabel(threads: number): string {
  return `${threads} thread${threads === 1 ? '' : 's'}`;
}
