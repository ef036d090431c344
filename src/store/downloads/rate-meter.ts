/** The history a download rate averages over, and the least that gives one. */
export const rateMeterDefaults = { windowMs: 5000, minSpanMs: 500 } as const;

/** Options of {@link RateMeter}. */
export interface RateMeterOptions {
  /** Milliseconds of history the rate averages over; default in {@link rateMeterDefaults}. */
  windowMs?: number;
  /** Shortest history that gives a rate, in milliseconds; default in {@link rateMeterDefaults}. */
  minSpanMs?: number;
}

/** A transfer rate over a sliding window: recent enough to follow changes, smooth enough to read. */
export class RateMeter {
  private readonly samples: { at: number; bytes: number }[] = [];
  private total = 0;
  private readonly windowMs: number;
  private readonly minSpanMs: number;

  constructor(options: RateMeterOptions = {}) {
    this.windowMs = options.windowMs ?? rateMeterDefaults.windowMs;
    this.minSpanMs = options.minSpanMs ?? rateMeterDefaults.minSpanMs;
  }

  /** Records `bytes` more arriving at time `at` (milliseconds). */
  add(bytes: number, at: number): void {
    this.total += bytes;
    this.samples.push({ at, bytes: this.total });
    // Keep one sample older than the window so the span stays close to the window.
    while (this.samples.length > 2 && at - (this.samples[1]?.at ?? at) > this.windowMs) {
      this.samples.shift();
    }
  }

  /** Forgets the history (after a pause or a cut, the old rate says nothing). */
  reset(): void {
    this.samples.length = 0;
  }

  /** Bytes per second at time `at`, or undefined until enough history exists. */
  rate(at: number): number | undefined {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (first === undefined || last === undefined) return undefined;
    const span = at - first.at;
    if (span < this.minSpanMs) return undefined;
    return ((last.bytes - first.bytes) / span) * 1000;
  }
}
