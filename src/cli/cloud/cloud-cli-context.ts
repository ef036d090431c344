import type { RunCommand } from '../../cloud/index.js';
import { LmtabError } from '../../errors/index.js';
import { cliExitStatus, formatCliError } from '../format/format-cli-error.js';

/** What the cloud and keys commands need from the outside world; tests pass their own. */
export interface CloudCliContext {
  /** lmtab's version. */
  version: string;
  /** Root of the lmtab package (its `package.json`, `build/`, `dist/`). */
  packageRoot: string;
  /** Folder relative paths start from. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Runs programs (kubectl). */
  run?: RunCommand;
  /** Called with a stop function for servers that run until the process is stopped. */
  onServe?: (stop: () => Promise<void>) => void;
}

/** The real context of the `lmtab` process. */
export function processCloudContext(version: string, packageRoot: string): CloudCliContext {
  return {
    version,
    packageRoot,
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    onServe: (stop) => {
      const shutdown = () => void stop().then(() => process.exit(0));
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    },
  };
}

/**
 * Runs a command's action, printing an LmtabError as one `Error (code): message` line with the
 * code's exit status instead of a stack trace (anything else is a bug and keeps its stack).
 */
export function reportErrors<Args extends unknown[]>(
  context: CloudCliContext,
  action: (...args: Args) => Promise<void>,
): (...args: Args) => Promise<void> {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      if (!(error instanceof LmtabError)) throw error;
      context.stderr(formatCliError(error));
      process.exitCode = cliExitStatus(error);
    }
  };
}
