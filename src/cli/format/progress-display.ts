import type { ProgressStatus } from '../relay-client.js';
import { formatProgressBar } from './format-progress-bar.js';

/** Options of {@link createProgressDisplay}. */
export interface ProgressDisplayOptions {
  /** Writes text to the terminal (stderr, as Ollama does). */
  write: (text: string) => void;
  /** Whether the output is a terminal, so a bar can redraw its line; otherwise lines only. */
  isTTY: boolean;
  /** Terminal width; default {@link defaultColumns}. */
  columns?: number;
  /** Milliseconds now, for the transfer rate; default `Date.now`. */
  clock?: () => number;
}

/** Shows a stream of statuses: plain lines, and one redrawn bar per file being moved. */
export interface ProgressDisplay {
  update(status: ProgressStatus): void;
  /** Ends the current line. */
  finish(): void;
}

/** Creates a {@link ProgressDisplay}; without a terminal a bar prints only when it starts and ends. */
export function createProgressDisplay(options: ProgressDisplayOptions): ProgressDisplay {
  const clock = options.clock ?? Date.now;
  let current = '';
  let open = false;
  let started = { at: 0, bytes: 0 };
  let lastPercent = -1;

  const endLine = () => {
    if (open) options.write('\n');
    open = false;
  };

  return {
    update(status) {
      const total = status.total ?? 0;
      const key = `${status.status}\u0000${status.digest ?? ''}`;
      const isBar = total > 0;
      const isNew = key !== current;
      if (isNew) {
        endLine();
        current = key;
        started = { at: clock(), bytes: status.completed ?? 0 };
        lastPercent = -1;
      }
      if (!isBar) {
        if (isNew) options.write(`${status.status}\n`);
        return;
      }
      const completed = status.completed ?? 0;
      const seconds = (clock() - started.at) / 1000;
      const rate = seconds > 0.5 ? (completed - started.bytes) / seconds : undefined;
      const line = formatProgressBar({
        label: status.status,
        completed,
        total,
        columns: options.columns,
        ...(rate === undefined ? {} : { rate }),
      });
      if (options.isTTY) {
        options.write(`\r${line}\u001b[K`);
        open = true;
        return;
      }
      // Without a terminal, print the start and the end of each transfer only.
      const percent = completed >= total ? 100 : 0;
      if (percent !== lastPercent) {
        options.write(`${line}\n`);
        lastPercent = percent;
      }
    },
    finish: endLine,
  };
}
