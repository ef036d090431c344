// The `lmtab` command's main: parses arguments and wires the real relay.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { createRelay } from '../relay/index.js';
import { processCloudContext } from './cloud-cli-context.js';
import { cloudCommand } from './cloud-command.js';
import { keysCommand } from './keys-command.js';

const root = new URL('../../', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  version: string;
};

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError(`expected a port number from 0 to 65535, got "${value}"`);
  }
  return port;
}

const program = new Command()
  .name('lmtab')
  .description('Run small language models in a browser tab, served as an OpenAI-compatible API.')
  .version(version);

program
  .command('serve')
  .description('Start the relay: the app and the API on http://HOST:PORT')
  .option('--host <host>', 'interface to listen on (0.0.0.0 for the LAN)', '127.0.0.1')
  .option('--port <port>', 'port (11434 for Ollama clients)', parsePort, 1234)
  .action(async (options: { host: string; port: number }) => {
    const appDir = new URL('dist/', root).pathname;
    const relay = await createRelay({ appDir, host: options.host, port: options.port, version });
    const shown =
      options.host === '0.0.0.0' ? relay.url.replace('0.0.0.0', 'localhost') : relay.url;
    process.stdout.write(`lmtab ${version} serving the app and API at ${shown}\n`);
    const stop = () => void relay.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

const cloudContext = processCloudContext(version, fileURLToPath(root));
program.addCommand(cloudCommand(cloudContext)).addCommand(keysCommand(cloudContext));

await program.parseAsync(process.argv);
