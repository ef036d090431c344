import { chromium, expect, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ollama } from 'ollama';
import { repos, startE2eHub } from './support/hub.js';
import { importModel, pngDataUri } from './support/app.js';
import { drain, hello } from './support/relay-clients.js';
import { openPage, relayPorts, runCli, startRelay, stopCli } from './support/relay.js';

const execFileAsync = promisify(execFile);

/** Pids of the Chromium renderer processes below `root` (the CLI's process). */
async function rendererPids(root: number): Promise<number[]> {
  const { stdout } = await execFileAsync('ps', ['-e', '-o', 'pid=,ppid=,args=']);
  const rows = stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .flatMap((m) => (m ? [{ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }] : []));
  const below = new Set([root]);
  for (let grown = true; grown;) {
    grown = false;
    for (const row of rows) {
      if (below.has(row.ppid) && !below.has(row.pid)) {
        below.add(row.pid);
        grown = true;
      }
    }
  }
  return rows
    .filter((r) => below.has(r.pid) && r.args.includes('--type=renderer'))
    .map((r) => r.pid);
}

test('lmtab serve --headless starts Chromium on its own app for the first request; its profile keeps the models', async () => {
  const port = relayPorts.headless;
  const profileDir = test.info().outputPath('profile');
  // Import a model into the profile first, on the origin the headless engine uses.
  const relay = await startRelay(port);
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.LMTAB_BROWSER ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await openPage(page, `${relay.url}/`);
  await importModel(page, 'tiny-lfm2.gguf');
  await context.close();
  await relay.close();

  const cli = await runCli([
    'serve',
    '--headless',
    '--port',
    String(port),
    '--profile-dir',
    profileDir,
  ]);
  try {
    const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
    expect(health.engines).toBe(0);
    const ollama = new Ollama({ host: `http://127.0.0.1:${port}` });
    const answer = await ollama.chat({
      model: 'tiny-lfm2',
      messages: hello,
      options: { num_predict: 6, temperature: 0 },
    });
    expect(answer.message.content.length).toBeGreaterThan(0);
    expect(cli.output()).toContain('starting headless');
    await expect.poll(cli.output).toMatch(/POST \/api\/chat tiny-lfm2 200 \d+ ms/);
    expect(cli.output()).toContain('lmtab: engine tab connected (4 slots, app 0.1.0); 1 connected');
    const after = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
    expect(after.engines).toBe(1);
    expect(after.headless).toEqual({ state: 'running' });

    // The engine's renderer killed mid-stream (as an out-of-memory kill does): that stream ends
    // with an error, a new page replaces the crashed one, and the next request is served.
    const story = (
      await ollama.chat({
        model: 'tiny-lfm2',
        messages: [{ role: 'user', content: 'Write a very long story' }],
        stream: true,
        options: { num_predict: 4000, temperature: 0 },
      })
    )[Symbol.asyncIterator]();
    await story.next();
    const renderers = await rendererPids(cli.child.pid!);
    expect(renderers.length).toBeGreaterThan(0);
    for (const pid of renderers) process.kill(pid, 'SIGKILL');
    const killed = Date.now();
    expect(String(await drain(story))).toContain('engine tab disconnected');
    const next = await ollama.chat({
      model: 'tiny-lfm2',
      messages: hello,
      options: { num_predict: 4, temperature: 0 },
    });
    expect(next.done).toBe(true);
    const recoveryMs = Date.now() - killed;
    expect(recoveryMs).toBeLessThan(60_000);
    test.info().annotations.push({
      type: 'recovery after a renderer kill',
      description: `${recoveryMs} ms`,
    });
    expect(cli.output()).toContain('engine page crashed; opening a new one');
    const recovered = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
    expect(recovered).toMatchObject({ engines: 1, headless: { state: 'running' } });
  } finally {
    expect(await stopCli(cli.child)).toBe(0);
  }

  const noBrowser = await runCli(['serve', '--headless', '--port', String(port)], {
    ...process.env,
    LMTAB_BROWSER: '/nonexistent/chrome',
  });
  expect(noBrowser.child.exitCode).toBe(1);
  expect(noBrowser.output()).toContain('LMTAB_BROWSER is "/nonexistent/chrome"');
});

test('a tab serving the relay runs the relay’s own app: a new version found as it opens is applied before it serves', async ({
  browser,
}) => {
  // Two builds of the app: the new one has another shell, and its worker's precache list gives the
  // shell another revision (what a rebuild after an upgrade of lmtab changes).
  const oldApp = test.info().outputPath('app-old');
  const newApp = test.info().outputPath('app-new');
  await cp('dist', oldApp, { recursive: true });
  await cp('dist', newApp, { recursive: true });
  const shell = await readFile(join(newApp, 'index.html'), 'utf8');
  expect(shell).toContain('<head>');
  await writeFile(
    join(newApp, 'index.html'),
    shell.replace('<head>', '<head><meta name="lmtab-e2e-version" content="new" />'),
  );
  const worker = await readFile(join(newApp, 'sw.js'), 'utf8');
  const entry = /\{"revision":"[0-9a-f]+","url":"index.html"\}/.exec(worker)?.[0];
  expect(entry, 'the shell in the worker’s precache list').toBeDefined();
  await writeFile(
    join(newApp, 'sw.js'),
    worker.replace(entry!, '{"revision":"e2e-new-version","url":"index.html"}'),
  );

  // The profile has served the relay with the old app: its worker caches that version.
  const context = await browser.newContext();
  const first = await startRelay(relayPorts.update, { appDir: oldApp });
  const page = await context.newPage();
  await openPage(page, first.pairingUrl());
  await expect.poll(() => first.stats().engines.length).toBe(1);
  await page.close();
  await first.close();

  const relay = await startRelay(relayPorts.update, { appDir: newApp });
  try {
    const engine = await context.newPage();
    const opened: string[] = [];
    engine.on(
      'framenavigated',
      (frame) => frame === engine.mainFrame() && opened.push(frame.url()),
    );
    await engine.goto(`${relay.url}/?relay=connect`);
    await expect(engine.locator('meta[name="lmtab-e2e-version"]')).toHaveCount(1, {
      timeout: 30_000,
    });
    await expect.poll(() => relay.stats().engines.length).toBe(1);
    // The old version loaded, found the new one, and reloaded once, before it joined the relay.
    expect(opened).toHaveLength(2);
    // A tab without the flag still asks first ("Reload to update"), for the person using it.
    await engine.close();
    await writeFile(
      join(newApp, 'sw.js'),
      worker.replace(entry!, '{"revision":"e2e-newer-version","url":"index.html"}'),
    );
    const person = await context.newPage();
    await openPage(person, `${relay.url}/`);
    await expect(person.getByRole('button', { name: 'Reload to update' })).toBeVisible({
      timeout: 30_000,
    });
    await expect(person.locator('meta[name="lmtab-e2e-version"]')).toHaveCount(1);
  } finally {
    await context.close();
    await relay.close();
  }
});

test('the Ollama client pulls from the hub through lmtab serve --headless, with progress, then chats with the model', async ({
  page,
}) => {
  const port = relayPorts.pull;
  const hub = await startE2eHub();
  // The headless engine page gets HF_ENDPOINT from the relay's environment.
  const cli = await runCli(
    [
      'serve',
      '--headless',
      '--port',
      String(port),
      '--profile-dir',
      test.info().outputPath('profile'),
    ],
    { ...process.env, HF_ENDPOINT: hub.url },
  );
  try {
    const ollama = new Ollama({ host: `http://127.0.0.1:${port}` });
    const model = `hf.co/${repos.vision}`;
    const parts: { status: string; digest?: string; total?: number; completed?: number }[] = [];
    for await (const part of await ollama.pull({ model, stream: true })) parts.push(part);
    expect(parts[0]?.status).toBe('pulling manifest');
    expect(parts.at(-1)?.status).toBe('success');
    // Progress of both files, the model and its projector, ending complete.
    const files = new Map<string, { total?: number; completed?: number }>();
    for (const part of parts) if (part.digest) files.set(part.digest, part);
    expect(files.size).toBe(2);
    for (const [digest, last] of files) {
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(last.total).toBeGreaterThan(0);
      expect(last.completed).toBe(last.total);
    }

    const pulled = `${model}:Q4_K_M`;
    expect((await ollama.list()).models.map((m) => m.name)).toContain(pulled);
    const answer = await ollama.chat({
      model,
      messages: [
        {
          role: 'user',
          content: 'What is in this picture?',
          images: [(await pngDataUri(page)).split(',')[1]!],
        },
      ],
      options: { num_predict: 6, temperature: 0 },
    });
    expect(answer.model).toBe(pulled);
    expect(answer.message.content.length).toBeGreaterThan(0);

    await expect(ollama.pull({ model: 'hf.co/LiquidAI/Nope-GGUF' })).rejects.toThrow(
      /Repository LiquidAI\/Nope-GGUF was not found/,
    );
    await ollama.delete({ model: pulled });
    expect((await ollama.list()).models.map((m) => m.name)).not.toContain(pulled);
  } finally {
    expect(await stopCli(cli.child)).toBe(0);
    await hub.close();
  }
});
