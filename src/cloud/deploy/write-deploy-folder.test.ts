import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineApp } from '../define-app.js';
import { planDeploy } from './deploy-plan.js';
import type { DeployPlanOptions } from './deploy-plan.js';
import {
  readExistingGatewayToken,
  readExistingRoutes,
  writeDeployFolder,
} from './write-deploy-folder.js';

let folder: string;
let packageRoot: string;

const options = (app: string): DeployPlanOptions => ({
  definition: defineApp({ model: 'hf.co/org/repo' }),
  org: 'acme',
  app,
  auth: 'private',
  image: 'registry.example.com/lmtab:0.1.0',
  namespace: 'lmtab',
  version: '0.1.0',
  keys: { version: 1, keys: [] },
  gatewayToken: 'a'.repeat(64),
});

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lmtab-deploy-'));
  packageRoot = join(folder, 'package');
  for (const [path, text] of [
    ['package.json', '{"name":"lmtab"}'],
    ['bin/lmtab.js', '// bin'],
    ['build/cli/main.js', '// main'],
    ['dist/index.html', '<!doctype html>'],
  ] as const) {
    await mkdir(join(packageRoot, path, '..'), { recursive: true });
    await writeFile(join(packageRoot, path), text);
  }
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('writeDeployFolder', () => {
  it('writes the plan and the built lmtab package as the build context', async () => {
    const outDir = join(folder, 'out');
    const written = await writeDeployFolder({
      outDir,
      plan: planDeploy(options('chat')),
      packageRoot,
    });
    expect(written).toContain('k8s/20-app-acme-chat.yaml');
    expect(written).toContain('lmtab/dist');
    expect((await readdir(join(outDir, 'lmtab'))).sort()).toEqual([
      'bin',
      'build',
      'dist',
      'package.json',
    ]);
    expect(await readFile(join(outDir, 'lmtab/build/cli/main.js'), 'utf8')).toBe('// main');
    expect(await readFile(join(outDir, 'Dockerfile'), 'utf8')).toMatch(/^COPY lmtab\/dist/m);
  });

  it('reads back earlier routes, so a second app joins the gateway', async () => {
    const outDir = join(folder, 'out');
    expect(await readExistingRoutes(outDir)).toEqual([]);
    await writeDeployFolder({ outDir, plan: planDeploy(options('chat')), packageRoot });
    const existingRoutes = await readExistingRoutes(outDir);
    await writeDeployFolder({
      outDir,
      plan: planDeploy({ ...options('other'), existingRoutes }),
      packageRoot,
    });
    expect((await readExistingRoutes(outDir)).map((route) => route.app)).toEqual(['chat', 'other']);
    expect((await readdir(join(outDir, 'k8s'))).sort()).toEqual([
      '00-namespace.yaml',
      '10-gateway.yaml',
      '20-app-acme-chat.yaml',
      '20-app-acme-other.yaml',
    ]);
  });

  it('keeps the gateway token across deploys, in a manifest only its owner reads', async () => {
    const outDir = join(folder, 'out');
    expect(await readExistingGatewayToken(outDir)).toBeUndefined();
    await writeDeployFolder({ outDir, plan: planDeploy(options('chat')), packageRoot });
    expect(await readExistingGatewayToken(outDir)).toBe('a'.repeat(64));
    expect((await stat(join(outDir, 'k8s/10-gateway.yaml'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(outDir, 'k8s/20-app-acme-chat.yaml'))).mode & 0o777).toBe(0o644);
  });

  it('refuses an lmtab that is not built', async () => {
    await rm(join(packageRoot, 'dist'), { recursive: true });
    await expect(
      writeDeployFolder({
        outDir: join(folder, 'out'),
        plan: planDeploy(options('chat')),
        packageRoot,
      }),
    ).rejects.toThrow(
      `Expected a built lmtab at ${packageRoot} to put in the image, got no dist/index.html: run \`npm run build\` there first.`,
    );
  });
});
