import { Command } from 'commander';
import { defineApp, GATEWAY_TOKEN_ENV } from '../../cloud/index.js';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import { reportErrors } from './cloud-cli-context.js';
import type { CloudCliContext } from './cloud-cli-context.js';
import { parsePortNumber } from './cloud-gateway-command.js';

/** Options of `lmtab cloud replica`, as the Knative Service's container arguments spell them. */
interface ReplicaOptions {
  model: string;
  contextLength: string;
  parallel: string;
  keepAlive: string;
  host: string;
  port: number;
  relayPort: number;
  profileDir?: string;
}

/** `lmtab cloud replica --model ...`: one app replica, the command of an app's container. */
export function cloudReplicaCommand(context: CloudCliContext): Command {
  return new Command('replica')
    .description(
      'Serve one app replica: relay, headless engine, model pulled and loaded (in a container)',
    )
    .requiredOption('--model <model>', 'hf.co/ORG/REPO:QUANT')
    .option('--context-length <tokens>', 'context length', '4096')
    .option('--parallel <slots>', 'requests decoded together', '4')
    .option(
      '--keep-alive <duration>',
      'how long the replica stays after load drops (Knative applies it)',
      '5m',
    )
    .option('--host <host>', 'interface of the serving port', '0.0.0.0')
    .option(
      '--port <port>',
      'the serving port (Knative sends requests and probes here)',
      parsePortNumber,
      8080,
    )
    .option('--relay-port <port>', "the relay's port on 127.0.0.1", parsePortNumber, 0)
    .option(
      '--profile-dir <dir>',
      'browser profile (downloaded weights); default $LMTAB_HOME/browser',
    )
    .action(
      reportErrors(context, async (options: ReplicaOptions) => {
        // Validated as an app file's options are, so a bad manifest fails with the same words.
        const definition = defineApp({
          model: options.model,
          contextLength: Number(options.contextLength),
          parallel: Number(options.parallel),
          keepAlive: options.keepAlive,
        });
        const gatewayToken = context.env[GATEWAY_TOKEN_ENV];
        if (gatewayToken === undefined || gatewayToken === '') {
          throw new LmtabError(
            'invalid_request',
            `A replica answers only its gateway: expected ${GATEWAY_TOKEN_ENV} (the token the ` +
              'gateway adds to every request, from the lmtab-gateway-token Secret), got none. ' +
              'Deploy again with `lmtab cloud deploy` to get manifests that set it.',
          );
        }
        const say = (line: string) => context.stdout(`lmtab: ${line}\n`);
        // Loaded on demand: playwright-core (the headless engine) takes seconds to import.
        const { serveApp } = await import('./cloud-serve-app.js');
        const server = await serveApp(context, {
          definition,
          host: options.host,
          port: options.port,
          relayPort: options.relayPort,
          profileDir: options.profileDir,
          log: say,
          gatewayToken,
        });
        say(
          `replica of ${definition.model} on ${server.front.url}, ready once the model is loaded`,
        );
        context.onServe?.(() => server.close());
        try {
          await server.ready;
        } catch (error) {
          // Exiting lets Kubernetes restart the container, which retries the download.
          await server.close();
          throw toLmtabError(error, 'download_failed');
        }
      }),
    );
}
