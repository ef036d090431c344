import { ESLint } from 'eslint';
import { describe, expect, test } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

/** The boundary messages ESLint gives `code` as if it were the file at `path`. */
async function boundaryProblems(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return result!.messages
    .filter((message) => message.ruleId === 'lmtab/module-boundaries')
    .map((message) => message.message);
}

describe('lmtab/module-boundaries', () => {
  test('browser code cannot import Node code or a Node built-in', async () => {
    expect(
      await boundaryProblems(
        'src/ui/probe.ts',
        "import { createRelay } from '../relay/index.js';\nimport { readFile } from 'node:fs';\nexport { createRelay, readFile };\n",
      ),
    ).toEqual([
      'src/ui/probe.ts runs in the browser and cannot import src/relay/index.ts, which runs in Node.',
      "src/ui/probe.ts runs in the browser and cannot import the Node built-in 'node:fs'.",
    ]);
  });

  test('Node code reads a browser folder only through its wire.ts, never its index.ts', async () => {
    expect(
      await boundaryProblems(
        'src/relay/probe.ts',
        "import { createRouter } from '../api/index.js';\nimport { errorResponse } from '../api/wire.js';\nexport { createRouter, errorResponse };\n",
      ),
    ).toEqual([
      'src/relay/probe.ts runs in Node and cannot import src/api/index.ts, which runs in the browser.',
    ]);
  });

  test('code that runs anywhere imports only code that runs anywhere', async () => {
    expect(
      await boundaryProblems(
        'src/hub/probe.ts',
        "import { DownloadManager } from '../store/index.js';\nexport { DownloadManager };\n",
      ),
    ).toEqual([
      'src/hub/probe.ts runs anywhere (browser and Node) and cannot import src/store/index.ts, which runs in the browser.',
    ]);
  });

  test('an import into another folder names its index.ts or wire.ts, not a file behind them', async () => {
    expect(
      await boundaryProblems(
        'src/ui/probe.ts',
        "import { formatBytes } from '../store/storage-space.js';\nimport { isApiPath } from '../api/route-table.js';\nexport { formatBytes, isApiPath };\n",
      ),
    ).toEqual([
      "'../store/storage-space.js' reaches past src/store's entry: import from src/store/index.ts.",
      "'../api/route-table.js' reaches past src/api's entry: import from src/api/index.ts or wire.ts.",
    ]);
  });

  test('a folder imports its own files freely, and tests reach test support', async () => {
    expect(
      await boundaryProblems(
        'src/relay/probe.test.ts',
        "import { relayFixture } from './create-relay.js';\nimport { routerHarness } from '../api/testing/router-harness.js';\nexport { relayFixture, routerHarness };\n",
      ),
    ).toEqual([]);
    expect(
      await boundaryProblems(
        'src/relay/probe.ts',
        "import { routerHarness } from '../api/testing/router-harness.js';\nexport { routerHarness };\n",
      ),
    ).toEqual([
      "'../api/testing/router-harness.js' reaches past src/api's entry: import from src/api/index.ts or wire.ts.",
    ]);
  });
});
