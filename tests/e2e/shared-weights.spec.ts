import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Relay } from '../../src/relay/index.js';
import { ensureFixtures } from '../support/lfm2-fixtures.js';
import { testPorts } from '../support/test-ports.js';
import { importModel, pngDataUri } from './support/app.js';
import { fixtureDir } from './support/paths.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// Issue 48: two models of one file, one of them beside a vision projector, made and remade with
// the real `lmtab` through the real relay into a real engine tab (and once in My Models).

let relay: Relay;
let tab: EngineTab;
let work: string;
let home: string;
let image: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  const fixtures = await ensureFixtures(fixtureDir);
  work = test.info().outputPath('work');
  home = test.info().outputPath('home');
  await mkdir(join(work, 'vl'), { recursive: true });
  // The same bytes twice, one copy beside a projector (so `lmtab create` sends it along).
  await copyFile(fixtures.lfm2, join(work, 'tiny.gguf'));
  await copyFile(fixtures.lfm2, join(work, 'vl', 'tinyvl.gguf'));
  await copyFile(fixtures.mmproj, join(work, 'vl', 'mmproj-tinyvl.gguf'));
  await writeFile(join(work, 'Modelfile'), 'FROM ./tiny.gguf\n');
  await writeFile(join(work, 'vl', 'Modelfile'), 'FROM ./tinyvl.gguf\n');
  relay = await startRelay(testPorts.relaySharedWeights);
  tab = await openEngineTab(browser, relay, []);
  image = (await pngDataUri(tab.page)).split(',')[1] ?? '';
});

test.afterAll(async () => {
  await tab?.context.close();
  await relay?.close();
});

/** Runs the built `lmtab` against the spec's relay; resolves to its stderr once it exits 0. */
async function lmtab(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [join(process.cwd(), 'bin/lmtab.js'), ...args], {
    cwd: work,
    env: {
      ...process.env,
      HOME: home,
      LMTAB_HOME: join(home, '.lmtab'),
      LMTAB_HOST: `127.0.0.1:${testPorts.relaySharedWeights}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, `lmtab ${args.join(' ')}: ${stderr}`).toBe(0);
  return stderr;
}

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${relay.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** `/v1/models`, `/api/show` and a chat with an image, for each name: whether it sees, or absent. */
async function expectModels(step: string, sees: Record<string, boolean>): Promise<void> {
  const listed = (await (await fetch(`${relay.url}/v1/models`)).json()) as {
    data: { id: string }[];
  };
  expect(listed.data.map((m) => m.id).sort(), step).toEqual(Object.keys(sees).sort());
  for (const name of ['tiny', 'tinyvl', 'tiny-lfm2']) {
    const show = await post('/api/show', { model: name });
    const chat = await post('/api/chat', {
      model: name,
      messages: [{ role: 'user', content: 'What is it?', images: [image] }],
      options: { num_predict: 1 },
      stream: false,
    });
    const where = `${step}: ${name}`;
    if (!(name in sees)) {
      expect([show.status, chat.status], where).toEqual([404, 404]);
      continue;
    }
    const { capabilities } = (await show.json()) as { capabilities: string[] };
    expect(capabilities.includes('vision'), where).toBe(sees[name]);
    if (sees[name]) {
      expect(chat.status, `${where}: ${await chat.clone().text()}`).toBe(200);
    } else {
      expect(chat.status, where).toBe(400);
      expect(((await chat.json()) as { error: string }).error, where).toMatch(
        `Model "${name}" cannot read images: it has no vision projector`,
      );
    }
  }
}

test('a model made from a file keeps to its own Modelfile, whatever shares the file', async () => {
  await lmtab('create', 'tiny', '-f', 'Modelfile');
  await expectModels('create tiny', { tiny: false });
  expect(await lmtab('create', 'tinyvl', '-f', 'vl/Modelfile')).toMatch(
    /using existing file sha256:[0-9a-f]{64}[\s\S]*using vision projector mmproj-tinyvl\.gguf/,
  );
  await expectModels('create tinyvl', { tiny: false, tinyvl: true });
  await lmtab('create', 'tiny', '-f', 'Modelfile');
  await expectModels('create tiny again', { tiny: false, tinyvl: true });
  await lmtab('create', 'tinyvl', '-f', 'vl/Modelfile');
  await expectModels('create tinyvl again', { tiny: false, tinyvl: true });
  await lmtab('rm', 'tiny');
  await expectModels('rm tiny', { tinyvl: true });
});

test('a file imported in My Models with a projector lends lmtab create its weights only', async () => {
  // The same bytes as tiny.gguf, imported in the page with the projector.
  await importModel(tab.page, 'tiny-lfm2.gguf', 'mmproj-tiny-lfm2-vl.gguf');
  await expectModels('import', { tinyvl: true, 'tiny-lfm2': true });
  expect(await lmtab('create', 'tiny', '-f', 'Modelfile')).toContain('using existing file');
  await expectModels('create tiny', { tinyvl: true, 'tiny-lfm2': true, tiny: false });
  // Both models with a projector go; the text model keeps the weights it shares with them.
  await lmtab('rm', 'tiny-lfm2', 'tinyvl');
  await expectModels('rm tiny-lfm2 tinyvl', { tiny: false });
  const answer = await post('/api/chat', {
    model: 'tiny',
    messages: [{ role: 'user', content: 'Hi' }],
    options: { num_predict: 2 },
    stream: false,
  });
  expect(answer.status).toBe(200);
});
