import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunCommand } from '../../cloud/index.js';
import { cloudCommand } from './cloud-command.js';
import { testContext } from './cloud-cli-testing.js';
import { keysCommand } from './keys-command.js';

const sampleApp = fileURLToPath(
  new URL('../../../tests/fixtures/cloud/sample-app.ts', import.meta.url),
);
let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lmtab-deploy-cli-'));
  for (const path of ['package.json', 'bin/lmtab.js', 'build/cli/main.js', 'dist/index.html']) {
    await mkdir(join(folder, 'package', path, '..'), { recursive: true });
    await writeFile(join(folder, 'package', path), '{}');
  }
  await writeFile(join(folder, 'app.ts'), await readFile(sampleApp));
});

afterEach(async () => {
  process.exitCode = undefined;
  await rm(folder, { recursive: true, force: true });
});

function context(run?: RunCommand) {
  return testContext({
    env: { LMTAB_HOME: join(folder, 'home') },
    cwd: folder,
    packageRoot: join(folder, 'package'),
    run,
  });
}

describe('lmtab cloud deploy', { timeout: 60_000 }, () => {
  it('writes the deploy folder with the key hashes and says what to run next', async () => {
    const keys = context();
    await keysCommand(keys).parseAsync(['create', '--name', 'ci'], { from: 'user' });
    const key = /^ {2}(lmtab_\S+)$/m.exec(keys.out.join(''))?.[1] ?? '';
    const cli = context();
    await cloudCommand(cli).parseAsync(
      [
        'deploy',
        'app.ts::serve',
        '--app-name',
        'chat',
        '--auth',
        'private',
        '--org',
        'acme',
        '--image',
        'registry.example.com/lmtab:1',
      ],
      { from: 'user' },
    );
    const out = cli.out.join('');
    expect(out).toMatch(
      /^Wrote lmtab-deploy\/ for acme\/chat \(private, hf\.co\/LiquidAI\/LFM2-350M-GGUF:Q4_K_M\): Dockerfile, k8s\/00-namespace\.yaml/,
    );
    expect(out).toContain(
      'docker build -t registry.example.com/lmtab:1 lmtab-deploy && docker push registry.example.com/lmtab:1',
    );
    expect(out).toContain('Then the base URL is http://EXTERNAL-IP/acme/chat/v1');
    expect(cli.err).toEqual([]);
    const gateway = await readFile(join(folder, 'lmtab-deploy/k8s/10-gateway.yaml'), 'utf8');
    expect(gateway).toContain('"auth": "private"');
    expect(gateway).toMatch(/"hash": "[0-9a-f]{64}"/);
    expect(gateway).not.toContain(key);
    expect(
      await readFile(join(folder, 'lmtab-deploy/k8s/20-app-acme-chat.yaml'), 'utf8'),
    ).toContain('nvidia.com/gpu: 1');
  });

  it('with --apply, says plainly that no cluster is there', async () => {
    const run: RunCommand = async (_program, args) =>
      args[0] === 'cluster-info'
        ? { code: 1, stdout: '', stderr: 'The connection to the server localhost:8080 was refused' }
        : { code: 0, stdout: '', stderr: '' };
    const cli = context(run);
    await cloudCommand(cli).parseAsync(
      ['deploy', 'app.ts', '--app-name', 'chat', '--auth', 'public', '--apply'],
      { from: 'user' },
    );
    expect(cli.out.join('')).toContain(
      'Not applied: kubectl found no reachable cluster (The connection to the server localhost:8080 was refused).',
    );
    expect(cli.err.join('')).toMatch(
      /Warning: The image dev\.local\/lmtab:0\.1\.0 exists only where you build it/,
    );
    expect(process.exitCode).toBe(1);
  });

  it('reports a missing export as one clear line', async () => {
    const cli = context();
    await cloudCommand(cli).parseAsync(
      ['deploy', 'app.ts::nope', '--app-name', 'chat', '--auth', 'public'],
      { from: 'user' },
    );
    expect(cli.err.join('')).toMatch(
      /^Error \(invalid_request\): Expected .*app\.ts to export nope \(export const nope = defineApp\(\{\.\.\.\}\)\), got exports serve\.\n$/,
    );
    expect(process.exitCode).toBe(2);
  });
});
