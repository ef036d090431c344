/** Keeps the engine's last log lines: shown in load errors, and never printed to the console. */
export class LogRing {
  private readonly buffer: string[] = [];

  constructor(private readonly size: number) {}

  /** A logger in the shape wllama takes. */
  logger() {
    const push = (...args: unknown[]) =>
      this.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    return { debug: push, log: push, info: push, warn: push, error: push };
  }

  /** Adds one line, dropping the oldest past the size. */
  push(line: string): void {
    this.buffer.push(line);
    if (this.buffer.length > this.size) this.buffer.shift();
  }

  /** Every kept line, oldest first. */
  lines(): string[] {
    return [...this.buffer];
  }

  /** The last `n` lines joined, for error messages. */
  tail(n: number): string {
    return this.buffer.slice(-n).join(' | ') || '(empty)';
  }
}
