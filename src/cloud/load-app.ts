import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { LmtabError } from '../errors/index.js';
import { isAppDefinition } from './define-app.js';
import type { AppDefinition } from './define-app.js';

/** An app named on the command line: `FILE.ts::EXPORT`. */
export interface AppReference {
  /** The app file as written. */
  file: string;
  /** The export holding the app definition; default `serve`. */
  exportName: string;
}

/** An app file's definition, loaded. */
export interface LoadedApp {
  /** Absolute path of the app file. */
  file: string;
  exportName: string;
  definition: AppDefinition;
  /** A default app name made from the file name (`chat-bot.ts` -> `chat-bot`). */
  suggestedName: string;
}

/** Options of {@link loadApp}. */
export interface LoadAppOptions {
  /** Folder relative file names are resolved from; default `process.cwd()`. */
  cwd?: string;
}

const example = 'app.ts::serve';
const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Parses `FILE.ts::EXPORT` (`::EXPORT` optional, default `serve`); throws `invalid_request`. */
export function parseAppReference(text: string): AppReference {
  const at = text.lastIndexOf('::');
  const file = (at === -1 ? text : text.slice(0, at)).trim();
  const exportName = at === -1 ? 'serve' : text.slice(at + 2).trim();
  if (file === '') {
    throw new LmtabError(
      'invalid_request',
      `Expected an app like ${example} (a file, then :: and the export), got ${JSON.stringify(text)}.`,
    );
  }
  if (!identifier.test(exportName)) {
    throw new LmtabError(
      'invalid_request',
      `Expected an export name after :: like ${example}, got ${JSON.stringify(exportName)}.`,
    );
  }
  return { file, exportName };
}

/** Turns a file name into an app name: lower case letters, digits and dashes. */
export function suggestAppName(file: string): string {
  const name = basename(file, extname(file))
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return /^[a-z]/.test(name) ? name : `app-${name}`.replace(/-$/, '');
}

// App files import `lmtab/cloud`; point it at this copy of lmtab, so an app file works whether
// lmtab is installed next to it, globally, or is this very checkout.
function lmtabCloudPlugin(): Plugin {
  const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
  const target = [here('./lmtab-cloud.js'), here('./lmtab-cloud.ts')].find((path) =>
    existsSync(path),
  );
  return {
    name: 'lmtab-cloud',
    setup(context) {
      context.onResolve({ filter: /^lmtab\/cloud$/ }, () => ({
        path: target ?? here('./lmtab-cloud.js'),
      }));
    },
  };
}

/**
 * Loads `FILE.ts::EXPORT`: esbuild bundles the file (TypeScript or JavaScript) to one ES module in a
 * temporary folder, which is imported and removed. Throws `invalid_request` for a missing file, a
 * file that does not build, a missing export, or an export that `defineApp` did not make.
 */
export async function loadApp(
  reference: string | AppReference,
  options: LoadAppOptions = {},
): Promise<LoadedApp> {
  const { file, exportName } =
    typeof reference === 'string' ? parseAppReference(reference) : reference;
  const path = resolve(options.cwd ?? process.cwd(), file);
  const shown = `${file}::${exportName}`;
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) {
    throw new LmtabError(
      'invalid_request',
      `Expected an app file at ${path} (from ${shown}), got ${info ? 'a folder' : 'no such file'}.`,
    );
  }
  const folder = await mkdtemp(join(tmpdir(), 'lmtab-app-'));
  try {
    let code: string;
    try {
      // Loaded on demand, so commands that never load an app file do not pay for it.
      const { build } = await import('esbuild');
      const result = await build({
        entryPoints: [path],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        write: false,
        logLevel: 'silent',
        plugins: [lmtabCloudPlugin()],
      });
      code = result.outputFiles[0]?.text ?? '';
    } catch (error) {
      const errors =
        (
          error as {
            errors?: { text: string; location?: { line: number; column: number } | null }[];
          }
        ).errors ?? [];
      const detail =
        errors.length > 0
          ? errors
              .map((e) =>
                e.location ? `line ${e.location.line}:${e.location.column}: ${e.text}` : e.text,
              )
              .join('; ')
          : (error as Error).message;
      throw new LmtabError(
        'invalid_request',
        `Expected ${path} to build as a TypeScript or JavaScript module, got: ${detail}`,
        { cause: error },
      );
    }
    const bundle = join(folder, 'app.mjs');
    await writeFile(bundle, code);
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(bundle).href)) as Record<string, unknown>;
    } catch (error) {
      // The bundle carries its own copy of LmtabError, so recognise it by name, not by class.
      const thrown = error as { name?: unknown; code?: unknown; message?: unknown };
      if (thrown.name === 'LmtabError' && typeof thrown.code === 'string') {
        throw new LmtabError('invalid_request', `${shown}: ${String(thrown.message)}`, {
          cause: error,
        });
      }
      throw new LmtabError(
        'invalid_request',
        `Expected ${path} to load, got an error: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (!Object.hasOwn(module, exportName)) {
      const names = Object.keys(module);
      throw new LmtabError(
        'invalid_request',
        `Expected ${path} to export ${exportName} (export const ${exportName} = defineApp({...})), got ${names.length === 0 ? 'no exports' : `exports ${names.join(', ')}`}.`,
      );
    }
    const definition = module[exportName];
    if (!isAppDefinition(definition)) {
      throw new LmtabError(
        'invalid_request',
        `Expected ${shown} to be an app made by defineApp from 'lmtab/cloud', got ${describe(definition)}.`,
      );
    }
    return { file: path, exportName, definition, suggestedName: suggestAppName(path) };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object without kind "lmtab-app"';
  return `a ${typeof value}`;
}
