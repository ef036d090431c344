// The `lmtab` command's main: parses arguments with commander and wires the real relay client.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import type { CliContext } from './cli-context.js';
import { processCloudContext } from './cloud/cloud-cli-context.js';
import { defaultMaxBlobBytes, defaultMaxBodyBytes } from '../api/wire.js';
import {
  defaultEngineTimeoutMs,
  defaultProfileDir,
  defaultQueueLimit,
  defaultRelayHost,
  defaultRelayPort,
  lmtabHome,
} from '../relay/index.js';
import { formatDuration } from '../cloud/index.js';
import { cloudCommand } from './cloud/cloud-command.js';
import { cpCommand } from './commands/cp-command.js';
import { createCommand } from './commands/create-command.js';
import { cliExitStatus, formatCliError } from './format/format-cli-error.js';
import { ensureRelay } from './ensure-relay.js';
import { keysCommand } from './cloud/keys-command.js';
import { launchCommand } from './launch/launch-command.js';
import type { LaunchOptions } from './launch/launch-command.js';
import { startAgent } from './launch/start-agent.js';
import { listCommand } from './commands/list-command.js';
import {
  collect,
  formatSizeFlag,
  parseCount,
  parsePort,
  parseSeconds,
  parseSize,
} from './parse-options.js';
import { psCommand } from './commands/ps-command.js';
import { pullCommand } from './commands/pull-command.js';
import { clientApiKey } from './client-api-key.js';
import { createRelayClient } from './relay-client.js';
import { resolveHost } from './resolve-host.js';
import { rmCommand } from './commands/rm-command.js';
import { runCommand } from './commands/run-command.js';
import type { RunOptions } from './commands/run-command.js';
import type { ServeOptions } from './commands/serve-command.js';
import { showCommand } from './commands/show-command.js';
import type { ShowOptions } from './commands/show-command.js';
import { stopCommand } from './commands/stop-command.js';

const root = new URL('../../', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  version: string;
};

function cliContext(): CliContext {
  let connected: Promise<ReturnType<typeof createRelayClient>> | undefined;
  return {
    connect() {
      connected ??= (async () => {
        const baseUrl = resolveHost(process.env.LMTAB_HOST);
        const client = createRelayClient({ baseUrl, apiKey: clientApiKey(process.env, baseUrl) });
        await ensureRelay({ client, log: (text) => process.stderr.write(text) });
        return client;
      })();
      return connected;
    },
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    home: homedir(),
    clock: Date.now,
  };
}

/**
 * Runs a command, turning any failure into one `Error (code): message` line and the code's exit
 * status from the error table (1 for a failure without a code).
 */
function action<A extends unknown[]>(run: (context: CliContext, ...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    try {
      await run(cliContext(), ...args);
    } catch (error) {
      process.stderr.write(formatCliError(error));
      process.exitCode = cliExitStatus(error);
    }
  };
}

const hostHelp = `Environment:\n  LMTAB_HOST     the relay to talk to (default ${defaultRelayHost}:${defaultRelayPort}); host, host:port or http://host:port\n  LMTAB_BROWSER  the Chrome or Chromium that runs the headless engine\n  LMTAB_THREADS  CPU threads of the headless engine (serve --headless; default every core)\n  LMTAB_API_KEY  the key the relay requires (serve) and the commands send\n  LMTAB_HOME     lmtab's folder: browser profile, relay secret and key, log (default ~/.lmtab)`;

const program = new Command()
  .name('lmtab')
  .description(
    'Run small language models in a browser tab, in the manner of Ollama: the CLI talks to the lmtab relay and starts one (with a headless engine) when none is running.',
  )
  .version(version)
  .addHelpText('after', `\n${hostHelp}`)
  .showHelpAfterError();

program
  .command('serve')
  .description('Start the relay: the app, /v1 (OpenAI) and /api (Ollama) on http://HOST:PORT')
  .option('--host <host>', 'interface to listen on (0.0.0.0 for the LAN)', defaultRelayHost)
  .option('--port <port>', 'port (11434 for Ollama clients)', parsePort, defaultRelayPort)
  .option('--headless', 'start headless Chromium as the engine when no tab is connected', false)
  .option(
    '--profile-dir <dir>',
    'browser profile of the headless engine (keeps its models)',
    defaultProfileDir(),
  )
  .option(
    '--queue <n>',
    `requests that may wait for a slot before 503 (default ${defaultQueueLimit})`,
    parseCount,
  )
  .option(
    '--cors-origin <origin>',
    'page origin allowed to call the API (repeatable; * lets any site use the engine); never lets pages join as engines',
    collect,
    [],
  )
  .option(
    '--max-body <size>',
    `largest request body before 413 (default ${formatSizeFlag(defaultMaxBodyBytes)})`,
    parseSize,
  )
  .option(
    '--api-key <key>',
    'key /v1 and /api require (Authorization: Bearer KEY or x-api-key: KEY); repeatable; LMTAB_API_KEY adds one',
    collect,
    [],
  )
  .option(
    '--no-auth',
    'bound beyond loopback, leave the API open instead of making and requiring a key',
  )
  .option(
    '--require-key',
    'programs on this machine need the API key too (behind a reverse proxy, or shared by several users); makes one when --api-key is not given',
    false,
  )
  .option(
    '--allowed-host <name>',
    'a name clients reach the relay by besides localhost and its addresses (repeatable); other Host headers get 403',
    collect,
    [],
  )
  .option(
    '--engine-timeout <duration>',
    `end a request whose engine sends nothing for this long, e.g. 90s, 10m (default ${formatDuration(defaultEngineTimeoutMs / 1000)})`,
    parseSeconds,
  )
  .option(
    '--max-blob <size>',
    `largest model file uploaded to /api/blobs before 413 (default ${formatSizeFlag(defaultMaxBlobBytes)})`,
    parseSize,
  )
  .option('--quiet', 'do not print a line per request', false)
  .addHelpText(
    'after',
    "\nSecurity: on loopback (the default) the API is open to programs on this machine; with\n--host 0.0.0.0 it needs a key (made and printed unless --api-key or --no-auth), and requests\nthrough a proxy need it too; --require-key makes this machine's programs send it as well. Engine\ntabs join only with the relay's secret (LMTAB_HOME/relay-secret, or the link serve prints).\n--cors-origin '*' lets every web page you visit use the API and your models.",
  )
  .action(async (options: ServeOptions) => {
    // Loaded on demand: playwright-core (the headless engine) takes seconds to import.
    const { serveCommand } = await import('./commands/serve-command.js');
    await serveCommand(options, { appDir: new URL('dist/', root).pathname, version });
  });

program
  .command('run')
  .description(
    'Chat with a model, or answer one prompt (MODEL: a name, hf.co/ORG/REPO:QUANT, or ./file.gguf)',
  )
  .argument('<model>', 'model name, hub reference, or path to a .gguf file')
  .argument('[prompt...]', 'answer this prompt and exit (piped stdin is put before it)')
  .option('-i, --interactive', 'chat line by line even when stdin is not a terminal')
  .option('--keepalive <duration>', 'how long the model stays loaded after use, e.g. 10m, 0')
  .option('--verbose', 'print timings after each answer')
  .option(
    '--format <format>',
    'answer in JSON: json, a JSON Schema (\'{"type":"object",...}\') or @schema.json',
  )
  .option('--think', 'let a thinking model think first (its default when neither flag is given)')
  .option('--no-think', 'ask a thinking model to answer at once')
  .option('--hidethinking', 'leave the thinking out of the output')
  .addHelpText(
    'after',
    '\nIn the chat: /set parameter NAME VALUE, /set system TEXT, /set format json, /set noformat,\n/set think, /set nothink, /show, /image PATH [QUESTION], /clear, /bye; """ begins and ends a\nmulti-line message; Ctrl+C stops an answer, Ctrl+D exits.',
  )
  .action(
    action((context, model: string, prompt: string[], options: RunOptions) =>
      runCommand(context, model, prompt, options),
    ),
  );

program
  .command('pull')
  .description('Download a model from the Hugging Face hub into the engine’s store')
  .argument('<model>', 'hf.co/ORG/REPO[:QUANT] (default Q4_K_M) or ORG/REPO')
  .action(action((context, model: string) => pullCommand(context, model)));

program
  .command('list')
  .alias('ls')
  .description('List the stored models')
  .action(action((context) => listCommand(context)));

program
  .command('ps')
  .description('List the models in memory')
  .action(action((context) => psCommand(context)));

program
  .command('show')
  .description('Show a model’s facts, or one field of its Modelfile')
  .argument('<model>', 'model name')
  .option('--modelfile', 'print the Modelfile')
  .option('--parameters', 'print the parameters')
  .option('--template', 'print the prompt template')
  .option('--system', 'print the system message')
  .option('--license', 'print the license')
  .action(
    action((context, model: string, options: ShowOptions) => showCommand(context, model, options)),
  );

program
  .command('create')
  .description(
    'Create a model from a Modelfile (FROM, TEMPLATE, PARAMETER, SYSTEM, MESSAGE, LICENSE)',
  )
  .argument('<model>', 'name of the new model')
  .option('-f, --file <path>', 'the Modelfile', 'Modelfile')
  .action(
    action((context, model: string, options: { file: string }) =>
      createCommand(context, model, options),
    ),
  );

program
  .command('cp')
  .description('Copy a model under a new name')
  .argument('<source>', 'model to copy')
  .argument('<destination>', 'new name')
  .action(
    action((context, source: string, destination: string) =>
      cpCommand(context, source, destination),
    ),
  );

program
  .command('rm')
  .description('Delete models')
  .argument('<model...>', 'models to delete')
  .action(action((context, models: string[]) => rmCommand(context, models)));

program
  .command('stop')
  .description('Unload a running model')
  .argument('<model>', 'model name')
  .action(action((context, model: string) => stopCommand(context, model)));

program
  .command('launch')
  .description(
    'Start Claude Code, Codex or opencode on a model served by lmtab (as ollama launch does): the relay and the model come up first, with a context fit for an agent',
  )
  .argument('<agent>', 'claude, codex or opencode')
  .argument(
    '[model]',
    'model name, hub reference or ./file.gguf (default: the loaded or only stored model)',
  )
  .argument('[args...]', "the agent's own arguments, after --")
  .option(
    '--context <tokens>',
    "context to load the model with (default 32768, at most the model's training context)",
    parseCount,
  )
  .option(
    '--config',
    'write the configuration and load the model; print the command instead of starting it',
  )
  .option('--restore', 'put back the configuration files lmtab launch wrote over, and stop')
  .addHelpText(
    'after',
    "\nExamples:\n  lmtab launch claude hf.co/LiquidAI/LFM2-1.2B-GGUF\n  lmtab launch codex tiny -- exec 'Fix the failing test'\n  lmtab launch --restore codex\n\nClaude Code is configured through its environment; Codex gets CODEX_HOME/lmtab.config.toml (used with\n--profile lmtab); opencode gets an lmtab provider in its opencode.json. Files are backed up in\nLMTAB_HOME/launch before the first change.",
  )
  .action(
    async (
      agent: string,
      model: string | undefined,
      rest: string[],
      options: LaunchOptions,
    ): Promise<void> => {
      // Everything after -- is the agent's; commander hands it over as operands like the rest.
      const dash = process.argv.indexOf('--');
      const agentArgs = dash === -1 ? [] : process.argv.slice(dash + 1);
      const before = [model, ...rest].filter((a) => a !== undefined).length - agentArgs.length;
      try {
        if (before > 1) {
          throw new Error(
            `Unexpected argument ${JSON.stringify(rest[0])}: expected the agent's arguments after --.`,
          );
        }
        process.exitCode = await launchCommand(
          { ...cliContext(), env: process.env, lmtabHome: lmtabHome(), start: startAgent },
          agent,
          before === 1 ? model : undefined,
          agentArgs,
          options,
        );
      } catch (error) {
        process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 1;
      }
    },
  );

const cloudContext = processCloudContext(version, fileURLToPath(root));
program.addCommand(cloudCommand(cloudContext)).addCommand(keysCommand(cloudContext));

await program.parseAsync(process.argv);
