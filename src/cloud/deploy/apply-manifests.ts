import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** A finished command: exit code (or the spawn error's code, e.g. `ENOENT`) and its output. */
export interface CommandResult {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs a program with arguments; injected so tests need no kubectl. */
export type RunCommand = (program: string, args: readonly string[]) => Promise<CommandResult>;

/** The outcome of {@link applyManifests}, in words a person can act on. */
export interface ApplyResult {
  applied: boolean;
  /** What happened, or why nothing was applied. */
  message: string;
  /** kubectl's output when it ran `apply`. */
  output?: string;
}

/** Options of {@link applyManifests}. */
export interface ApplyManifestsOptions {
  /** The deploy folder (its `k8s/` is applied). */
  outDir: string;
  /** Default: node:child_process `execFile`. */
  run?: RunCommand;
  /** kubectl to run; default `kubectl` from PATH. */
  kubectl?: string;
}

/** Runs a program with `execFile`, resolving (never rejecting) with its exit code and output. */
export const runCommand: RunCommand = (program, args) =>
  new Promise((done) => {
    execFile(program, [...args], { timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : ((error as NodeJS.ErrnoException).code ?? 1);
      done({
        code: typeof code === 'number' || typeof code === 'string' ? code : 1,
        stdout,
        stderr,
      });
    });
  });

/** The last non-empty line of stderr (kubectl ends with its summary), else of stdout. */
function summary(result: CommandResult): string {
  const last = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .at(-1);
  return last(result.stderr) ?? last(result.stdout) ?? 'no output';
}

/**
 * `kubectl apply -f DIR/k8s/`, after checking that kubectl is on PATH, that it reaches a cluster
 * (`kubectl cluster-info`) and that the cluster has Knative Serving; says plainly which is missing.
 */
export async function applyManifests(options: ApplyManifestsOptions): Promise<ApplyResult> {
  const run = options.run ?? runCommand;
  const kubectl = options.kubectl ?? 'kubectl';
  const version = await run(kubectl, ['version', '--client']);
  if (version.code === 'ENOENT') {
    return {
      applied: false,
      message: `Not applied: kubectl is not on PATH. Install it, or apply the folder yourself later: kubectl apply -f ${join(options.outDir, 'k8s')}`,
    };
  }
  const info = await run(kubectl, ['cluster-info', '--request-timeout=10s']);
  if (info.code !== 0) {
    return {
      applied: false,
      message: `Not applied: kubectl found no reachable cluster (${summary(info)}). Point kubectl at a cluster and run: kubectl apply -f ${join(options.outDir, 'k8s')}`,
    };
  }
  const knative = await run(kubectl, [
    'get',
    'crd',
    'services.serving.knative.dev',
    '--request-timeout=10s',
  ]);
  if (knative.code !== 0) {
    return {
      applied: false,
      message:
        'Not applied: the cluster has no Knative Serving (no services.serving.knative.dev resource). Install Knative Serving and a networking layer first: https://knative.dev/docs/install/',
    };
  }
  const apply = await run(kubectl, ['apply', '-f', join(options.outDir, 'k8s')]);
  if (apply.code !== 0) {
    return {
      applied: false,
      message: `kubectl apply failed: ${summary(apply)}`,
      output: apply.stdout + apply.stderr,
    };
  }
  return { applied: true, message: 'Applied to the cluster.', output: apply.stdout };
}
