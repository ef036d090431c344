import type { CloudCliContext } from './cloud-cli-context.js';

/** A context for command tests: output captured, the environment given. */
export function testContext(
  overrides: Partial<CloudCliContext> & { env: NodeJS.ProcessEnv; cwd: string },
): CloudCliContext & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    version: '0.1.0',
    packageRoot: overrides.cwd,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    out,
    err,
    ...overrides,
  };
}
