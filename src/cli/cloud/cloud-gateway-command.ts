import { Command, InvalidArgumentError } from 'commander';
import {
  createGateway,
  createGatewayConfigReader,
  createKeyFileReader,
  GATEWAY_TOKEN_ENV,
} from '../../cloud/index.js';
import { reportErrors } from './cloud-cli-context.js';
import type { CloudCliContext } from './cloud-cli-context.js';

/** Parses a TCP port number. */
export function parsePortNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError(`expected a port number from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** `lmtab cloud gateway --config gateway.json --keys keys.json`: the gateway container's command. */
export function cloudGatewayCommand(context: CloudCliContext): Command {
  return new Command('gateway')
    .description('Run the gateway: /ORG/APP/v1 and /ORG/APP/api with API keys, forwarded to apps')
    .requiredOption('--config <file>', 'gateway.json with the routes (read again when it changes)')
    .requiredOption('--keys <file>', 'keys.json with the key hashes (read again when it changes)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port', parsePortNumber, 8080)
    .action(
      reportErrors(
        context,
        async (options: { config: string; keys: string; host: string; port: number }) => {
          const routes = createGatewayConfigReader(options.config, (error) =>
            context.stderr(`lmtab: keeping the previous routes: ${error.message}\n`),
          );
          await routes();
          const replicaToken = context.env[GATEWAY_TOKEN_ENV];
          const gateway = await createGateway({
            routes,
            keys: createKeyFileReader(options.keys),
            host: options.host,
            port: options.port,
            // From the Secret the apps' replicas read too: they answer only requests carrying it.
            replicaToken: replicaToken === '' ? undefined : replicaToken,
            log: (line) => context.stdout(`${line}\n`),
          });
          context.stdout(`lmtab ${context.version} gateway listening on ${gateway.url}\n`);
          context.onServe?.(() => gateway.close());
        },
      ),
    );
}
