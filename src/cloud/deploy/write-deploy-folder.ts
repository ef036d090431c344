import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { LmtabError } from '../../errors/index.js';
import { MANIFEST_FILES, routesFromGatewayYaml } from './deploy-plan.js';
import type { DeployPlan } from './deploy-plan.js';
import { gatewayTokenFromYaml } from './gateway-manifests.js';
import type { GatewayRoute } from '../gateway/gateway-routing.js';

/** Options of {@link writeDeployFolder}. */
export interface WriteDeployFolderOptions {
  /** The deploy folder; created when missing. */
  outDir: string;
  plan: DeployPlan;
  /** Root of the lmtab package copied into the image's build context (needs `npm run build`). */
  packageRoot: string;
}

// What the image needs of the lmtab package: its manifest, lock, entry, Node build and web app.
const packageEntries = ['package.json', 'package-lock.json', 'bin', 'build', 'dist'];
const required = ['package.json', 'bin/lmtab.js', 'build/cli/main.js', 'dist/index.html'];

/** The routes of apps deployed from this folder before (none for a new folder). */
export async function readExistingRoutes(outDir: string): Promise<GatewayRoute[]> {
  const text = await readFile(join(outDir, MANIFEST_FILES.gateway), 'utf8').catch(() => undefined);
  return text === undefined ? [] : routesFromGatewayYaml(text);
}

/** The gateway token of apps deployed from this folder before (none for a new folder). */
export async function readExistingGatewayToken(outDir: string): Promise<string | undefined> {
  const text = await readFile(join(outDir, MANIFEST_FILES.gateway), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : gatewayTokenFromYaml(text);
}

/**
 * Writes a planned deploy folder and copies the built lmtab package into `lmtab/` (the image's
 * build context). Throws `invalid_request` when lmtab is not built. Returns the paths written,
 * relative to the folder.
 */
export async function writeDeployFolder(options: WriteDeployFolderOptions): Promise<string[]> {
  const outDir = resolve(options.outDir);
  const root = resolve(options.packageRoot);
  const missing: string[] = [];
  for (const entry of required) {
    if (!(await stat(join(root, entry)).catch(() => undefined))) missing.push(entry);
  }
  if (missing.length > 0) {
    throw new LmtabError(
      'invalid_request',
      `Expected a built lmtab at ${root} to put in the image, got no ${missing.join(', ')}: run \`npm run build\` there first.`,
    );
  }
  const written: string[] = [];
  for (const [path, content] of options.plan.files) {
    const full = join(outDir, path);
    await mkdir(dirname(full), { recursive: true });
    // The gateway's manifest holds the token its apps accept: readable by its owner only.
    await writeFile(full, content, { mode: path === MANIFEST_FILES.gateway ? 0o600 : 0o644 });
    written.push(path);
  }
  const context = join(outDir, 'lmtab');
  await rm(context, { recursive: true, force: true });
  await mkdir(context, { recursive: true });
  for (const entry of packageEntries) {
    const source = join(root, entry);
    if (!(await stat(source).catch(() => undefined))) continue;
    await cp(source, join(context, entry), { recursive: true });
    written.push(`lmtab/${entry}`);
  }
  return written;
}
