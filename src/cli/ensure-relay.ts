import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LmtabError } from '../errors/index.js';
import { lmtabHome } from '../relay/index.js';
import { openPrivateLog } from './open-private-log.js';
import type { RelayClient } from './relay-client.js';
import { isLocalHost } from './resolve-host.js';

/** Milliseconds the CLI waits for a relay it starts (Chromium's first start is slow). */
export const defaultRelayStartMs = 60_000;

/** Options of {@link ensureRelay}. */
export interface EnsureRelayOptions {
  client: RelayClient;
  /** Writes notes for the person (stderr). */
  log: (text: string) => void;
  /** The environment (`LMTAB_BROWSER`, `PATH`, `HOME`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Milliseconds to wait for a relay this call starts; default {@link defaultRelayStartMs}. */
  timeoutMs?: number;
}

const binPath = fileURLToPath(new URL('../../bin/lmtab.js', import.meta.url));

/**
 * Makes sure a relay answers at the client's address. When none does and the address is this
 * machine's, starts `lmtab serve --headless` in the background (logging to `$LMTAB_HOME/relay.log`,
 * mode 0600; its process id in `$LMTAB_HOME/relay.pid`) and waits for it; otherwise, or when no browser can run the engine, throws
 * `relay_unreachable`.
 */
export async function ensureRelay(options: EnsureRelayOptions): Promise<void> {
  const { client, log } = options;
  const env = options.env ?? process.env;
  if ((await client.health()) !== undefined) return;
  const origin = client.baseUrl.origin;
  if (!isLocalHost(client.baseUrl)) {
    throw new LmtabError(
      'relay_unreachable',
      `No lmtab relay answers at ${origin} (from LMTAB_HOST): start one there with "lmtab serve --headless --host 0.0.0.0", or unset LMTAB_HOST to use this machine.`,
    );
  }
  let browser: string;
  try {
    // Imported here only: playwright-core takes seconds to load, and most commands never need it.
    const { findBrowser } = await import('./headless/headless-engine.js');
    browser = findBrowser(env);
  } catch (error) {
    throw new LmtabError(
      'relay_unreachable',
      `No lmtab relay answers at ${origin}, and none can be started here: ${error instanceof Error ? error.message : String(error)} Or open the lmtab app in a browser and run "lmtab serve".`,
      { cause: error },
    );
  }

  const home = lmtabHome(env);
  const logPath = join(home, 'relay.log');
  const logFd = openPrivateLog(logPath);
  const host = client.baseUrl.hostname.replace(/^\[|\]$/g, '');
  const port = client.baseUrl.port === '' ? '80' : client.baseUrl.port;
  log(`Starting the lmtab relay with a headless engine at ${origin} (log: ${logPath})\n`);
  const child = spawn(
    process.execPath,
    [
      binPath,
      'serve',
      '--headless',
      '--host',
      host === 'localhost' ? '127.0.0.1' : host,
      '--port',
      port,
    ],
    {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: { ...env, LMTAB_BROWSER: browser },
    },
  );
  let exited: number | string | undefined;
  child.once('exit', (code, signal) => (exited = code ?? signal ?? 'unknown'));
  child.once('error', (error) => (exited = error.message));
  child.unref();
  // So the person (and tests) can stop the background relay: kill $(cat $LMTAB_HOME/relay.pid), default ~/.lmtab.
  if (child.pid !== undefined) writeFileSync(join(home, 'relay.pid'), `${child.pid}\n`);

  const deadline = Date.now() + (options.timeoutMs ?? defaultRelayStartMs);
  while (Date.now() < deadline) {
    // The relay starts the headless engine with the first API request and holds it until then.
    if ((await client.health({ timeoutMs: 1000 })) !== undefined) return;
    if (exited !== undefined) {
      throw new LmtabError(
        'relay_unreachable',
        `The lmtab relay stopped while starting (exit ${exited}): ${lastLines(logPath)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new LmtabError(
    'relay_unreachable',
    `The lmtab relay did not answer at ${origin} within ${Math.round((options.timeoutMs ?? defaultRelayStartMs) / 1000)} s; see ${logPath}.`,
  );
}

function lastLines(path: string): string {
  try {
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    return lines.slice(-3).join(' / ') || `see ${path}`;
  } catch {
    return `see ${path}`;
  }
}
