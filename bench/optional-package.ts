// Packages only an optional bench row uses stay out of `npm ci` (issue 44: @fugood/llama.node is
// 295 MB of CUDA, Vulkan and CPU binaries for the old prebuilt reference row). The row installs its
// pinned version on first use into bench/.cache/packages/NAME@VERSION and imports it from there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The optional packages, pinned: one home for each version. */
export const optionalPackages = {
  '@fugood/llama.node': '1.7.15',
} as const;

/**
 * Installs `name` at its pinned version under `cacheDir` when it is not there yet, and returns the
 * file to import it from (its entry, resolved from the install's own `node_modules`).
 */
export function ensureOptionalPackage(
  cacheDir: string,
  name: keyof typeof optionalPackages,
  log: (line: string) => void,
): string {
  const version = optionalPackages[name];
  const prefix = join(cacheDir, 'packages', `${name.replace('/', '+')}@${version}`);
  const entry = () => createRequire(join(prefix, 'package.json')).resolve(name);
  if (existsSync(join(prefix, 'node_modules', name, 'package.json'))) return entry();
  log(`installing ${name}@${version} for its bench row into ${prefix} (once)`);
  mkdirSync(prefix, { recursive: true });
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      prefix,
      `${name}@${version}`,
    ],
    { stdio: 'inherit' },
  );
  return entry();
}
