import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { loadApp, parseAppReference, suggestAppName } from './load-app.js';

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lmtab-load-app-'));
  await writeFile(
    join(folder, 'chat-bot.ts'),
    [
      "import { defineApp } from 'lmtab/cloud';",
      "import { model } from './shared.js';",
      '',
      'const replicas: number = 4;',
      'export const serve = defineApp({',
      '  model,',
      '  contextLength: 8192,',
      '  maxReplicas: replicas,',
      "  keepAlive: '5m',",
      '  gpu: true,',
      '});',
      "export const other = { kind: 'something-else' };",
      '',
    ].join('\n'),
  );
  await writeFile(
    join(folder, 'shared.ts'),
    "export const model: string = 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M';\n",
  );
  await writeFile(join(folder, 'broken.ts'), 'export const serve = defineApp({ model: \n');
  await writeFile(
    join(folder, 'invalid.ts'),
    "import { defineApp } from 'lmtab/cloud';\nexport const serve = defineApp({ model: 'x', keepAlive: '5 min' });\n",
  );
  await writeFile(join(folder, 'throws.mjs'), "throw new Error('boom');\n");
  await mkdir(join(folder, 'dir.ts'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function failure(reference: string): Promise<LmtabError> {
  const error = await loadApp(reference, { cwd: folder }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LmtabError);
  expect((error as LmtabError).code).toBe('invalid_request');
  return error as LmtabError;
}

describe('parseAppReference', () => {
  it('splits FILE::EXPORT and defaults the export to serve', () => {
    expect(parseAppReference('apps/chat.ts::serve')).toEqual({
      file: 'apps/chat.ts',
      exportName: 'serve',
    });
    expect(parseAppReference('chat.ts::other')).toEqual({ file: 'chat.ts', exportName: 'other' });
    expect(parseAppReference('chat.ts')).toEqual({ file: 'chat.ts', exportName: 'serve' });
  });

  it.each([['::serve'], ['chat.ts::'], ['chat.ts::not-an-identifier']])('rejects %j', (text) => {
    expect(() => parseAppReference(text)).toThrow(/Expected .*app\.ts::serve/);
  });
});

describe('suggestAppName', () => {
  it.each([
    ['/x/chat-bot.ts', 'chat-bot'],
    ['ChatBot.ts', 'chat-bot'],
    ['my_app.v2.ts', 'my-app-v2'],
    ['1st.ts', 'app-1st'],
  ])('%s -> %s', (file, name) => {
    expect(suggestAppName(file)).toBe(name);
  });
});

describe('loadApp', { timeout: 60_000 }, () => {
  it('bundles a TypeScript app file with local imports and lmtab/cloud', async () => {
    const app = await loadApp('chat-bot.ts::serve', { cwd: folder });
    expect(app.file).toBe(join(folder, 'chat-bot.ts'));
    expect(app.exportName).toBe('serve');
    expect(app.suggestedName).toBe('chat-bot');
    expect(app.definition).toMatchObject({
      kind: 'lmtab-app',
      model: 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
      contextLength: 8192,
      maxReplicas: 4,
      keepAliveSeconds: 300,
      gpu: true,
    });
  });

  it('says when the file is missing', async () => {
    expect((await failure('nope.ts::serve')).message).toBe(
      `Expected an app file at ${join(folder, 'nope.ts')} (from nope.ts::serve), got no such file.`,
    );
    expect((await failure('dir.ts')).message).toMatch(/got a folder/);
  });

  it('says when the export is missing, listing the exports there are', async () => {
    expect((await failure('chat-bot.ts::app')).message).toMatch(
      /to export app \(export const app = defineApp\(\{\.\.\.\}\)\), got exports other, serve\./,
    );
  });

  it('says when the export is not an app definition', async () => {
    expect((await failure('chat-bot.ts::other')).message).toMatch(
      /Expected chat-bot\.ts::other to be an app made by defineApp from 'lmtab\/cloud', got an object/,
    );
  });

  it('reports build errors with their line', async () => {
    expect((await failure('broken.ts')).message).toMatch(
      /broken\.ts to build as a TypeScript or JavaScript module, got: line 2:/,
    );
  });

  it('passes on defineApp errors and load errors', async () => {
    expect((await failure('invalid.ts')).message).toMatch(
      /^invalid\.ts::serve: defineApp: model: Expected a hub model reference/,
    );
    expect((await failure('throws.mjs')).message).toMatch(/to load, got an error: boom/);
  });
});
