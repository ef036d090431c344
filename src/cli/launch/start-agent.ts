import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * Runs `command` on this terminal (stdin, stdout and stderr shared) and resolves to its exit code
 * (128 + the signal's number when a signal ended it); rejects with the spawn error (ENOENT when
 * the command is not on PATH). Ctrl+C belongs to the agent while it runs: lmtab ignores SIGINT.
 */
export function startAgent(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: 'inherit' });
    const ignore = () => undefined;
    process.on('SIGINT', ignore);
    const done = () => process.off('SIGINT', ignore);
    child.once('error', (error) => {
      done();
      reject(error);
    });
    child.once('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)));
    });
  });
}
