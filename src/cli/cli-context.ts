import type { RelayClient } from './relay-client.js';

/** A stream the CLI writes to (stdout, stderr). */
export interface CliOutput {
  write(text: string): unknown;
  /** Whether it is a terminal. */
  isTTY?: boolean;
  /** Terminal width, when a terminal. */
  columns?: number;
}

/** What every command gets: the relay, the terminal and the clock. */
export interface CliContext {
  /** Connects to the relay, starting one in the background when none answers and it may. */
  connect(): Promise<RelayClient>;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: CliOutput;
  stderr: CliOutput;
  /** Folder that relative paths on the command line are read from. */
  cwd: string;
  /** The person's home folder, for `~/` in paths. */
  home: string;
  /** Epoch milliseconds now. */
  clock: () => number;
}
