import { expect, test } from '@playwright/test';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { runDockerfileSteps } from '../support/dockerfile-steps.js';
import { issueModelfile } from '../support/issue-modelfile.js';
import { ensureFixtures } from '../support/lfm2-fixtures.js';
import { testPorts } from '../support/test-ports.js';
import { fixtureDir } from './support/paths.js';

const run = promisify(execFile);
const repo = process.cwd();
const browser = process.env.LMTAB_BROWSER ?? '/usr/bin/chromium';
const { version } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
  version: string;
};

// Each test builds lmtab from scratch (npm ci, vite, tsc) on two cores.
test.describe.configure({ mode: 'serial', timeout: 420_000 });

/**
 * A clean copy of the repository as a fresh clone has it (tracked and new files, none that git
 * ignores), less the `.dockerignore` entries when `dockerignore` is set: a build context.
 */
async function cleanCopy(dest: string, options: { dockerignore?: boolean } = {}): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: repo,
    maxBuffer: 64 << 20,
  });
  const ignored = options.dockerignore
    ? (await readFile(join(repo, '.dockerignore'), 'utf8')).split('\n').filter(Boolean)
    : [];
  for (const path of stdout.split('\0').filter(Boolean)) {
    if (ignored.some((entry) => path === entry || path.startsWith(`${entry}/`))) continue;
    await mkdir(dirname(join(dest, path)), { recursive: true });
    // A file deleted in the work tree but still tracked is not part of a clone's checkout either.
    await copyFile(join(repo, path), join(dest, path)).catch(() => undefined);
  }
}

/** Starts a server command and waits until its `/health` answers ok. */
async function startServing(
  command: string[],
  options: { env: NodeJS.ProcessEnv; port: number; cwd: string },
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const health = `http://127.0.0.1:${options.port}/health`;
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}:\n${output}`);
        const response = await fetch(health).catch(() => undefined);
        return response?.ok === true ? ((await response.json()) as { status?: string }) : null;
      },
      { timeout: 60_000, message: `GET ${health}` },
    )
    .toMatchObject({ status: 'ok' });
  return { child, output: () => output };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The start command with the image's port swapped for a test port. */
function onPort(command: string[], port: number): string[] {
  return command.map((arg, index) => (command[index - 1] === '--port' ? String(port) : arg));
}

test('a second headless relay on a profile in use says in one line who holds it', async () => {
  const folder = test.info().outputPath('profile');
  await mkdir(folder, { recursive: true });
  const env = { ...process.env, LMTAB_HOME: folder, LMTAB_BROWSER: browser };
  const lmtab = join(repo, 'bin/lmtab.js');
  const first = await startServing(
    [process.execPath, lmtab, 'serve', '--headless', '--port', String(testPorts.profileHolder)],
    { env, port: testPorts.profileHolder, cwd: folder },
  );
  try {
    const second = await run(
      process.execPath,
      [lmtab, 'serve', '--headless', '--port', String(testPorts.profileSecond)],
      { env, cwd: folder },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `lmtab: The browser profile ${join(folder, 'browser')} is in use by the lmtab relay at http://127.0.0.1:${testPorts.profileHolder} (pid ${first.child.pid}): use that relay (LMTAB_HOST=127.0.0.1:${testPorts.profileHolder} lmtab ...), or pass another --profile-dir.\n`,
    );
    // The first relay is untouched and still answers.
    expect((await fetch(`http://127.0.0.1:${testPorts.profileHolder}/health`)).ok).toBe(true);
  } finally {
    await stop(first.child);
  }
});

test("the Dockerfile's steps build lmtab in a clean folder and its start command serves /health", async () => {
  const folder = test.info().outputPath('docker');
  const context = join(folder, 'context');
  await cleanCopy(context, { dockerignore: true });
  const image = await runDockerfileSteps(await readFile(join(repo, 'Dockerfile'), 'utf8'), {
    context,
    root: join(folder, 'root'),
    // The host has Chromium and the rest from Debian already; installing them is the host's job.
    skipRun: /apt-get install/,
    dropFromEntrypoint: ['tini'],
  });
  await test.info().attach('steps', { body: image.log.join('\n') });
  expect(image.command).toContain('serve');
  const port = testPorts.dockerImage;
  const server = await startServing(onPort(image.command, port), {
    env: { ...process.env, ...image.env, LMTAB_BROWSER: browser },
    port,
    cwd: folder,
  });
  await stop(server.child);
});

test("lmtab cloud deploy's Dockerfile installs with the lockfile and its start command serves /health", async () => {
  const folder = test.info().outputPath('deploy');
  await mkdir(folder, { recursive: true });
  await copyFile(join(repo, 'tests/fixtures/cloud/sample-app.ts'), join(folder, 'app.ts'));
  // The deploy folder is written from the built package in this checkout (npm test builds it).
  await run(
    process.execPath,
    [join(repo, 'bin/lmtab.js'), 'cloud', 'deploy', 'app.ts::serve', '--app-name', 'chat'].concat([
      '--auth',
      'public',
      '--out',
      'out',
    ]),
    { cwd: folder, env: { ...process.env, LMTAB_HOME: join(folder, 'home') } },
  );
  const out = join(folder, 'out');
  const image = await runDockerfileSteps(await readFile(join(out, 'Dockerfile'), 'utf8'), {
    context: out,
    root: join(folder, 'root'),
    skipRun: /apt-get install/,
    dropFromEntrypoint: ['tini'],
  });
  await test.info().attach('steps', { body: image.log.join('\n') });
  expect(image.log.join('\n')).toMatch(/npm ci --omit=dev/);
  const port = testPorts.deployImage;
  const server = await startServing(onPort(image.command, port), {
    env: { ...process.env, ...image.env, LMTAB_BROWSER: browser },
    port,
    cwd: folder,
  });
  await stop(server.child);
});

test('npm pack builds what it ships; the global install serves and chats from another folder', async () => {
  const folder = test.info().outputPath('pack');
  const source = join(folder, 'source');
  await cleanCopy(source);
  // The clean copy borrows this checkout's installed packages instead of installing them again.
  await symlink(join(repo, 'node_modules'), join(source, 'node_modules'), 'dir');
  await run('npm', ['pack', '--pack-destination', folder], { cwd: source, maxBuffer: 64 << 20 });
  const tarball = join(folder, `lmtab-${version}.tgz`);
  const { stdout: listing } = await run('tar', ['-tzf', tarball], { maxBuffer: 64 << 20 });
  for (const path of ['bin/lmtab.js', 'build/cli/main.js', 'dist/index.html', 'dist/sw.js']) {
    expect(listing.split('\n')).toContain(`package/${path}`);
  }

  const prefix = join(folder, 'prefix');
  await run('npm', ['install', '-g', '--prefix', prefix, tarball], { maxBuffer: 64 << 20 });
  const installed = join(prefix, 'lib/node_modules/lmtab');
  const runtime = (await readdir(join(installed, 'node_modules'))).filter(
    (n) => !n.startsWith('.'),
  );
  expect(runtime).not.toContain('@wllama');
  expect(runtime).not.toContain('vite');

  const work = join(folder, 'elsewhere');
  await mkdir(work, { recursive: true });
  const fixtures = await ensureFixtures(fixtureDir);
  await copyFile(fixtures.lfm2, join(work, 'tiny.gguf'));
  await writeFile(join(work, 'Modelfile'), issueModelfile);
  const port = testPorts.globalInstall;
  const env = {
    ...process.env,
    LMTAB_HOME: join(folder, 'home'),
    LMTAB_HOST: `127.0.0.1:${port}`,
    LMTAB_BROWSER: browser,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
  };
  const lmtab = (args: string[]) => run('lmtab', args, { cwd: work, env, maxBuffer: 16 << 20 });

  expect((await lmtab(['--version'])).stdout.trim()).toBe(version);
  let server: Awaited<ReturnType<typeof startServing>> | undefined;
  try {
    server = await startServing(['lmtab', 'serve', '--headless', '--port', String(port)], {
      env,
      port,
      cwd: work,
    });
    await lmtab(['create', 'tiny-global', '-f', 'Modelfile']);
    expect((await lmtab(['list'])).stdout).toMatch(/^tiny-global\b/m);
    const answer = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: 'tiny-global',
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 4,
      }),
    });
    const body = (await answer.json()) as {
      choices: Array<{ message: { content: string } }>;
      usage: { completion_tokens: number };
    };
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(typeof body.choices[0]?.message.content).toBe('string');
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
  } finally {
    await stop(server?.child);
  }
  // The profile lives in the one home folder.
  expect(await readdir(join(folder, 'home', 'browser'))).toContain('Default');
});
