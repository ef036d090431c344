import { resolve } from 'node:path';
import { toLmtabError } from '../errors/index.js';
import { createRelay, type RelayLogEntry } from '../relay/index.js';
import { createHeadlessEngine, findBrowser, type HeadlessEngine } from './headless-engine.js';

/** Options of {@link serveCommand} (the `serve` flags). */
export interface ServeOptions {
  /** Interface to listen on. */
  host: string;
  port: number;
  /** Start headless Chromium as the engine when no tab is connected. */
  headless: boolean;
  /** Browser profile of the headless engine (keeps its models). */
  profileDir: string;
  /** Requests that may wait for a slot before 503; the relay's default (16) when absent. */
  queue?: number;
  /** Page origins allowed to call the API. */
  corsOrigin: string[];
  /** Largest request body in bytes; the relay's default (32 MiB) when absent. */
  maxBody?: number;
  /** Largest model file uploaded to `/api/blobs`, in bytes; the relay's default (64 GiB) when absent. */
  maxBlob?: number;
  /** No line per request. */
  quiet: boolean;
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
    try {
      executablePath = findBrowser();
    } catch (error) {
      process.stderr.write(`lmtab: ${toLmtabError(error).message}\n`);
      process.exit(1);
    }
    headless = createHeadlessEngine({
      executablePath,
      profileDir: resolve(options.profileDir),
      log: (line) => say(`lmtab: ${line}`),
    });
  }
  const relay = await createRelay({
    appDir: meta.appDir,
    host: options.host,
    port: options.port,
    version: meta.version,
    queueLimit: options.queue,
    corsOrigins: options.corsOrigin,
    maxBodyBytes: options.maxBody,
    maxBlobBytes: options.maxBlob,
    startEngine: headless && ((url) => headless.start(url)),
    onLog: options.quiet ? undefined : (entry) => process.stdout.write(formatLog(entry)),
    onEngine: (event) =>
      say(
        event.type === 'connected'
          ? `lmtab: engine tab connected (${event.capacity} slots, app ${event.version ?? 'unknown'}); ${event.engines} connected`
          : `lmtab: engine tab disconnected; ${event.engines} connected`,
      ),
  });
  const shown = options.host === '0.0.0.0' ? relay.url.replace('0.0.0.0', 'localhost') : relay.url;
  say(`lmtab ${meta.version} serving the app and API at ${shown} (OpenAI: ${shown}/v1)`);
  if (headless) say('lmtab: a headless engine starts with the first API request');
  else say(`lmtab: open ${shown}/ and click Start Server to serve its engine here`);
  const stop = () =>
    void Promise.all([relay.close(), headless?.close()]).finally(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
