import { join, resolve } from 'node:path';
import { headlessStorage } from '../../cloud/index.js';
import { toLmtabError } from '../../errors/index.js';
import {
  createRelay,
  isLoopbackName,
  lanAddresses,
  lmtabHome,
  loadOrCreateSecret,
  type EngineEvent,
  type RelayLogEntry,
} from '../../relay/index.js';
import { decideClientKeys } from './decide-client-keys.js';
import {
  createHeadlessEngine,
  findBrowser,
  type HeadlessEngine,
} from '../headless/headless-engine.js';
import { claimProfile, type ProfileClaim } from '../headless/profile-lock.js';

/** Options of {@link serveCommand} (the `serve` flags). */
export interface ServeOptions {
  /** Interface to listen on. */
  host: string;
  port: number;
  /** Start headless Chromium as the engine when no tab is connected. */
  headless: boolean;
  /** Browser profile of the headless engine (keeps its models). */
  profileDir: string;
  /** Requests that may wait for a slot before 503; the relay's default when absent. */
  queue?: number;
  /** Page origins allowed to call the API. */
  corsOrigin: string[];
  /** Largest request body in bytes; the relay's default when absent. */
  maxBody?: number;
  /** Largest model file uploaded to `/api/blobs`, in bytes; the relay's default when absent. */
  maxBlob?: number;
  /** No line per request. */
  quiet: boolean;
  /** Keys `/v1` and `/api` require (`--api-key`, repeatable); `LMTAB_API_KEY` adds one. */
  apiKey: string[];
  /** False with `--no-auth`: bound beyond loopback, the API stays open (no key is made). */
  auth: boolean;
  /** `--require-key`: loopback clients need the key too (one is made when none is given). */
  requireKey?: boolean;
  /** Names the `Host` header may carry besides loopback, the bound and LAN addresses. */
  allowedHost: string[];
  /** Seconds an engine may send nothing for a request before `engine_timeout`. */
  engineTimeout?: number;
}

function formatLog(entry: RelayLogEntry): string {
  const parts = [
    new Date(entry.time).toISOString(),
    entry.method,
    entry.path,
    entry.model ?? '-',
    entry.status === undefined ? 'client gone' : String(entry.status),
    `${entry.durationMs} ms`,
  ];
  return `${parts.join(' ')}\n`;
}

/** `lmtab serve`: runs the relay (the app and the API), with a headless engine when asked. */
export async function serveCommand(
  options: ServeOptions,
  meta: { appDir: string; version: string },
): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  let headless: HeadlessEngine | undefined;
  if (options.headless) {
    let executablePath: string;
    let storage: Record<string, string>;
    try {
      // Read at start: a bad LMTAB_THREADS stops serve here, not at the engine's first start.
      storage = headlessStorage(process.env);
      executablePath = findBrowser();
    } catch (error) {
      process.stderr.write(`lmtab: ${toLmtabError(error).message}\n`);
      process.exit(1);
    }
    headless = createHeadlessEngine({
      executablePath,
      profileDir: resolve(options.profileDir),
      storage,
      log: (line) => say(`lmtab: ${line}`),
    });
  }
  const home = lmtabHome();
  const engineSecret = await loadOrCreateSecret(join(home, 'relay-secret'));
  const { keys: clientKeys, made } = await decideClientKeys(options, process.env, () =>
    loadOrCreateSecret(join(home, 'relay-api-key')),
  );
  const relay = await createRelay({
    appDir: meta.appDir,
    host: options.host,
    port: options.port,
    version: meta.version,
    queueLimit: options.queue,
    corsOrigins: options.corsOrigin,
    maxBodyBytes: options.maxBody,
    engineSecret,
    clientKeys,
    allowedHosts: options.allowedHost,
    engineTimeoutMs: options.engineTimeout === undefined ? undefined : options.engineTimeout * 1000,
    headlessState: headless && (() => headless.state()),
    maxBlobBytes: options.maxBlob,
    startEngine: headless && ((url) => headless.start(url)),
    onLog: options.quiet ? undefined : (entry) => process.stdout.write(formatLog(entry)),
    onEngine: (event) => say(`lmtab: ${describeEngineEvent(event)}`),
  });
  const shown = options.host === '0.0.0.0' ? relay.url.replace('0.0.0.0', 'localhost') : relay.url;
  let claim: ProfileClaim | undefined;
  if (headless) {
    try {
      claim = claimProfile(resolve(options.profileDir), { url: shown });
    } catch (error) {
      process.stderr.write(`lmtab: ${toLmtabError(error).message}\n`);
      await relay.close();
      process.exit(1);
    }
  }
  say(`lmtab ${meta.version} serving the app and API at ${shown} (OpenAI: ${shown}/v1)`);
  const beyondLoopback = !isLoopbackName(options.host);
  if (made) {
    const who = clientKeys.required === 'everyone' ? 'clients' : 'other devices';
    say(`lmtab: ${who} need the API key ${clientKeys.keys[0]} (Authorization: Bearer KEY)`);
    say(
      `lmtab: it is kept in ${join(home, 'relay-api-key')}, where the lmtab commands read it` +
        (clientKeys.required === 'everyone' ? '' : '; --no-auth leaves the API open'),
    );
  } else if (clientKeys.keys.length > 0) {
    say('lmtab: /v1 and /api need an API key (--api-key or LMTAB_API_KEY)');
  } else if (beyondLoopback) {
    say('lmtab: --no-auth: every device that reaches this address may use the API');
  }
  if (beyondLoopback) {
    const port = new URL(relay.url).port;
    for (const address of lanAddresses(options.host)) {
      const base = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
      say(`lmtab: a tab on another device serves as an engine with ${relay.pairingUrl(base)}`);
    }
  }
  // The link carries the engine secret: the page keeps it, and no other local program can ask
  // the relay for it (see docs/security.md, Trust model).
  const link = relay.appUrl(new URL(shown).origin);
  if (headless) say('lmtab: a headless engine starts with the first API request');
  say(
    `lmtab: open ${link} in Chrome or Edge${headless ? '' : ' and click Start Server'} to serve ` +
      'its engine here (the link carries the relay’s secret: keep it private)',
  );
  // The relay first: its answers in progress end with an error event before the engine goes.
  const stop = () =>
    void relay
      .close()
      .then(() => headless?.close())
      .finally(() => {
        claim?.release();
        process.exit(0);
      });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** One line of `lmtab serve`'s output for an engine tab's event. */
function describeEngineEvent(event: EngineEvent): string {
  switch (event.type) {
    case 'connected':
      return `engine tab connected (${event.capacity} slots, app ${event.version ?? 'unknown'}); ${event.engines} connected`;
    case 'disconnected':
      return `engine tab disconnected; ${event.engines} connected`;
    case 'set-aside':
      return `engine tab set aside: its page answered nothing for ${Math.round((event.silentMs ?? 0) / 1000)} s (frozen or suspended); ${event.engines} take requests`;
    case 'rejoined':
      return `engine tab answers again after ${Math.round((event.asideMs ?? 0) / 1000)} s set aside; ${event.engines} take requests`;
  }
}
