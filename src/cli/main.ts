// The `lmtab` command's main: parses arguments and wires the real relay (and headless engine).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { toLmtabError } from '../errors/index.js';
import { createRelay, type RelayLogEntry } from '../relay/index.js';
import { createHeadlessEngine, findBrowser, type HeadlessEngine } from './headless-engine.js';
import { collect, parseCount, parsePort, parseSize } from './parse-options.js';

const root = new URL('../../', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  version: string;
};

interface ServeOptions {
  host: string;
  port: number;
  headless: boolean;
  profileDir: string;
  queue?: number;
  corsOrigin: string[];
  maxBody?: number;
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

const program = new Command()
  .name('lmtab')
  .description('Run small language models in a browser tab, served as an OpenAI-compatible API.')
  .version(version);

program
  .command('serve')
  .description('Start the relay: the app, /v1 (OpenAI) and /api (Ollama) on http://HOST:PORT')
  .option('--host <host>', 'interface to listen on (0.0.0.0 for the LAN)', '127.0.0.1')
  .option('--port <port>', 'port (11434 for Ollama clients)', parsePort, 1234)
  .option('--headless', 'start headless Chromium as the engine when no tab is connected', false)
  .option(
    '--profile-dir <dir>',
    'browser profile of the headless engine (keeps its models)',
    join(homedir(), '.lmtab', 'browser'),
  )
  .option('--queue <n>', 'requests that may wait for a slot before 503 (default 16)', parseCount)
  .option(
    '--cors-origin <origin>',
    'page origin allowed to call the API (repeatable, * for any)',
    collect,
    [],
  )
  .option('--max-body <size>', 'largest request body before 413 (default 32m)', parseSize)
  .option('--quiet', 'do not print a line per request', false)
  .action(async (options: ServeOptions) => {
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
      appDir: new URL('dist/', root).pathname,
      host: options.host,
      port: options.port,
      version,
      queueLimit: options.queue,
      corsOrigins: options.corsOrigin,
      maxBodyBytes: options.maxBody,
      startEngine: headless && ((url) => headless.start(url)),
      onLog: options.quiet ? undefined : (entry) => process.stdout.write(formatLog(entry)),
      onEngine: (event) =>
        say(
          event.type === 'connected'
            ? `lmtab: engine tab connected (${event.capacity} slots, app ${event.version ?? 'unknown'}); ${event.engines} connected`
            : `lmtab: engine tab disconnected; ${event.engines} connected`,
        ),
    });
    const shown =
      options.host === '0.0.0.0' ? relay.url.replace('0.0.0.0', 'localhost') : relay.url;
    say(`lmtab ${version} serving the app and API at ${shown} (OpenAI: ${shown}/v1)`);
    if (headless) say('lmtab: a headless engine starts with the first API request');
    else say(`lmtab: open ${shown}/ and click Start Server to serve its engine here`);
    const stop = () =>
      void Promise.all([relay.close(), headless?.close()]).finally(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

await program.parseAsync(process.argv);
