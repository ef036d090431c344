import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { promisify } from 'node:util';

/** One instruction of a Dockerfile, continuation lines joined. */
export interface DockerInstruction {
  keyword: string;
  args: string;
}

/** Splits a Dockerfile into instructions (comments dropped, `\` continuations joined). */
export function parseDockerfile(text: string): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = '';
    const match = /^(\S+)\s+([\s\S]*)$/.exec(whole);
    if (match !== null) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]! });
  }
  return instructions;
}

/** What running a Dockerfile's steps produced: the start command of the last stage. */
export interface DockerRun {
  /** The image's ENTRYPOINT + CMD as argv, container paths mapped to the host. */
  command: string[];
  /** The image's ENV, container paths mapped to the host. */
  env: Record<string, string>;
  /** Every step taken or skipped, for the test's log. */
  log: string[];
}

/** Options of {@link runDockerfileSteps}. */
export interface RunDockerfileOptions {
  /** The build context (a clean copy of what `docker build` would send). */
  context: string;
  /** Where each stage's file system is laid out (`<root>/<stage>/...`). */
  root: string;
  /**
   * RUN steps skipped because they change the host rather than the image (package installs need
   * the host to have the packages already); matched against the command text.
   */
  skipRun?: RegExp;
  /** Programs of the image's entrypoint that the host lacks and that only wrap the command. */
  dropFromEntrypoint?: string[];
}

const jsonArray = (args: string): string[] => JSON.parse(args) as string[];

/**
 * Runs a Dockerfile's steps in order on this machine, as `docker build` would in a container, for
 * machines without a container engine: each stage gets its own folder standing for `/`, WORKDIR,
 * COPY (with `--from`), ENV and RUN are carried out there (absolute container paths in commands and
 * values mapped into that folder), and the last stage's start command is returned, mapped the same
 * way. Throws when a RUN step fails.
 */
export async function runDockerfileSteps(
  dockerfile: string,
  options: RunDockerfileOptions,
): Promise<DockerRun> {
  const log: string[] = [];
  const stages = new Map<string, string>();
  let stageRoot = '';
  let workdir = '/';
  let env: Record<string, string> = {};
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  // Container paths that stand for folders of the stage; /usr/local/bin must never be the host's.
  const mapped = new Set<string>(['/usr/local/bin']);
  // Absolute paths the image uses, longest first, so /opt/lmtab wins over /opt.
  const toHost = (text: string, root: string) =>
    [...mapped]
      .sort((a, b) => b.length - a.length)
      .reduce(
        (value, path) =>
          value.replace(new RegExp(`(^|[\\s="'])${path}(?=$|[/\\s"'])`, 'g'), `$1${root}${path}`),
        text,
      );
  const inStage = (path: string) => join(stageRoot, posix.resolve(workdir, path));

  for (const { keyword, args } of parseDockerfile(dockerfile)) {
    switch (keyword) {
      case 'FROM': {
        const name = /\bAS\s+(\S+)$/i.exec(args)?.[1] ?? `stage${stages.size}`;
        stageRoot = join(options.root, name);
        stages.set(name, stageRoot);
        // What the base image has that the steps rely on.
        await mkdir(join(stageRoot, 'usr/local/bin'), { recursive: true });
        await seedNpmCache(join(stageRoot, npmCacheInStage));
        workdir = '/';
        env = {};
        log.push(`FROM ${args}`);
        break;
      }
      case 'WORKDIR':
        workdir = posix.resolve(workdir, args);
        mapped.add(`/${workdir.split('/')[1]}`);
        await mkdir(inStage('.'), { recursive: true });
        log.push(`WORKDIR ${workdir}`);
        break;
      case 'ENV':
        for (const match of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
          env[match[1]!] = match[2]!.replace(/^"|"$/g, '');
          if (match[2]!.startsWith('/') && !match[2]!.startsWith('/usr/bin/')) {
            mapped.add(`/${match[2]!.split('/')[1]}`);
          }
        }
        log.push(`ENV ${args}`);
        break;
      case 'COPY': {
        const parts = args.split(/\s+/);
        const stage = parts[0]!.startsWith('--from=') ? parts.shift()!.slice(7) : undefined;
        const target = parts.pop()!;
        const sourceRoot = stage === undefined ? options.context : stages.get(stage);
        if (sourceRoot === undefined) throw new Error(`COPY --from=${stage}: no such stage`);
        const sources = (await Promise.all(parts.map((part) => expand(sourceRoot, part)))).flat();
        for (const source of sources) {
          // Docker's rules: `.` copies the folder's contents; several sources, or a target
          // ending in `/`, go inside the target; one source becomes the target.
          const into = target.endsWith('/') || sources.length > 1;
          const to = inStage(into ? posix.join(target, posix.basename(source)) : target);
          await mkdir(dirname(to), { recursive: true });
          await cp(join(sourceRoot, source), to, { recursive: true });
        }
        log.push(`COPY ${args}`);
        break;
      }
      case 'RUN': {
        if (options.skipRun?.test(args) === true) {
          log.push(`RUN (skipped here) ${args}`);
          break;
        }
        const command = toHost(args, stageRoot);
        log.push(`RUN ${command}`);
        // The image's own user and its file owners do not exist here.
        await sh(`chown() { :; }; ${command}`, inStage('.'), {
          ...process.env,
          // The image's own npm cache: a step's `npm cache clean --force` empties the stage's, never
          // the host's (which every later install on this machine reads).
          npm_config_cache: join(stageRoot, npmCacheInStage),
          ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, toHost(v, stageRoot)])),
        });
        break;
      }
      case 'ENTRYPOINT':
        entrypoint = jsonArray(args);
        break;
      case 'CMD':
        cmd = jsonArray(args);
        break;
      default:
        log.push(`${keyword} ${args} (nothing to do outside a container)`);
    }
  }
  const drop = new Set(options.dropFromEntrypoint ?? []);
  const start = entrypoint.filter((arg) => !drop.has(arg));
  if (start[0] === '--') start.shift();
  return {
    command: [...start, ...cmd].map((arg) => toHost(arg, stageRoot)),
    env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, toHost(v, stageRoot)])),
    log,
  };
}

/** Where a stage keeps its npm cache (npm's default for root in a container). */
const npmCacheInStage = 'root/.npm';

/**
 * Gives a stage its own npm cache that starts as the host's: npm's cache is content-addressed and
 * never rewrites a file in place, so hard links are a faithful copy that costs no space, and a
 * step that deletes the stage's cache only unlinks them. Falls back to an empty cache (downloads)
 * where links cannot be made (another file system).
 */
async function seedNpmCache(dest: string): Promise<void> {
  const host = process.env.npm_config_cache ?? join(homedir(), '.npm');
  await mkdir(dest, { recursive: true });
  if (!existsSync(join(host, '_cacache'))) return;
  await promisify(execFile)('cp', ['-al', join(host, '_cacache'), join(dest, '_cacache')]).catch(
    () => undefined,
  );
}

/** A COPY source with `*` in its last segment, expanded against the files there. */
async function expand(root: string, source: string): Promise<string[]> {
  const name = posix.basename(source);
  if (!name.includes('*')) return [source];
  const pattern = new RegExp(`^${name.replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
  const names = await readdir(join(root, posix.dirname(source)));
  return names
    .filter((entry) => pattern.test(entry))
    .map((entry) => posix.join(posix.dirname(source), entry));
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`RUN ${command} failed with ${code}:\n${output.slice(-4000)}`)),
    );
  });
}
