import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { headlessStorage, startAppServer } from '../../cloud/index.js';
import type { AppDefinition, AppServer } from '../../cloud/index.js';
import { LmtabError } from '../../errors/index.js';
import { createRelay, defaultProfileDir } from '../../relay/index.js';
import type { CloudCliContext } from './cloud-cli-context.js';
import { createHeadlessEngine, findBrowser } from '../headless/headless-engine.js';

/** Where an app's serving port and its relay listen. */
export interface ServeAppOptions {
  definition: AppDefinition;
  /** Interface of the serving port. */
  host: string;
  /** The serving port (0: any free one). */
  port: number;
  /** The relay's port on 127.0.0.1 (0: any free one). */
  relayPort: number;
  /** Browser profile of the headless engine; default `$LMTAB_HOME/browser` (`~/.lmtab/browser`). */
  profileDir?: string;
  /** Progress and browser lines. */
  log: (line: string) => void;
  /** The token the gateway adds; the serving port refuses requests without it. */
  gatewayToken: string;
}

/**
 * Serves one app on this machine: a relay on 127.0.0.1 with a headless Chromium engine (the
 * app's context length and slots seeded into the page, `HF_ENDPOINT` and `HF_TOKEN` too), and the
 * serving port in front that reports ready once the app's model is pulled and loaded.
 */
export async function serveApp(
  context: CloudCliContext,
  options: ServeAppOptions,
): Promise<AppServer> {
  const appDir = join(context.packageRoot, 'dist');
  if (!existsSync(join(appDir, 'index.html'))) {
    throw new LmtabError(
      'no_engine',
      `Expected the built app in ${appDir} for the headless engine, got none: run \`npm run build\` in ${context.packageRoot}.`,
    );
  }
  const headless = createHeadlessEngine({
    executablePath: findBrowser(context.env),
    profileDir: resolve(context.cwd, options.profileDir ?? defaultProfileDir(context.env)),
    storage: headlessStorage(context.env, options.definition),
    log: options.log,
  });
  return startAppServer({
    definition: options.definition,
    host: options.host,
    port: options.port,
    log: options.log,
    gatewayToken: options.gatewayToken,
    startRelay: async () => {
      const relay = await createRelay({
        appDir,
        host: '127.0.0.1',
        port: options.relayPort,
        version: context.version,
        startEngine: (url) => headless.start(url),
      });
      return {
        url: relay.url,
        close: async () => {
          await relay.close();
          await headless.close();
        },
      };
    },
  });
}
