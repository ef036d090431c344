import { Command, Option } from 'commander';
import {
  assertDnsLabel,
  createGateway,
  createKeyFileReader,
  defaultKeyFile,
  loadApp,
  routePrefix,
} from '../../cloud/index.js';
import type { AppAuth, Gateway } from '../../cloud/index.js';
import { toLmtabError } from '../../errors/index.js';
import { newSecret } from '../../relay/index.js';
import { reportErrors } from './cloud-cli-context.js';
import type { CloudCliContext } from './cloud-cli-context.js';
import { parseAuth } from './cloud-deploy-command.js';
import { parsePortNumber } from './cloud-gateway-command.js';

/** Options of `lmtab cloud run`. */
interface CloudRunOptions {
  auth: AppAuth;
  org: string;
  appName?: string;
  host: string;
  port: number;
  profileDir?: string;
  replicaPort: number;
  relayPort: number;
}

/**
 * `lmtab cloud run FILE.ts::serve`: the app on this machine, as it will run deployed: relay and
 * headless engine with the model pulled and loaded, behind the gateway at `/ORG/APP`.
 */
export function cloudRunCommand(context: CloudCliContext): Command {
  return new Command('run')
    .description(
      'Run an app here until stopped: model pulled and loaded, gateway at http://HOST:PORT/ORG/APP',
    )
    .argument('<app>', 'the app file and its export, FILE.ts::serve')
    .option(
      '--auth <auth>',
      'public, or private (Authorization: Key <API_KEY>, keys from lmtab keys)',
      parseAuth,
      'public',
    )
    .option('--org <org>', 'the org in the URL', 'default')
    .option('--app-name <name>', 'the app in the URL (default: from the file name)')
    .option('--host <host>', 'interface of the gateway (0.0.0.0 for the LAN)', '127.0.0.1')
    .option('--port <port>', 'port of the gateway', parsePortNumber, 8080)
    .option(
      '--profile-dir <dir>',
      'browser profile (downloaded weights); default $LMTAB_HOME/browser',
    )
    .addOption(
      new Option('--replica-port <port>', "the app's own port on 127.0.0.1")
        .argParser(parsePortNumber)
        .default(0)
        .hideHelp(),
    )
    .addOption(
      new Option('--relay-port <port>', "the relay's port on 127.0.0.1")
        .argParser(parsePortNumber)
        .default(0)
        .hideHelp(),
    )
    .action(
      reportErrors(context, async (reference: string, options: CloudRunOptions) => {
        const loaded = await loadApp(reference, { cwd: context.cwd });
        const app = options.appName ?? loaded.suggestedName;
        assertDnsLabel(app, 'an app name');
        assertDnsLabel(options.org, 'an org');
        const say = (line: string) => context.stderr(`lmtab: ${line}\n`);
        const { definition } = loaded;
        // Loaded on demand: playwright-core (the headless engine) takes seconds to import.
        const { serveApp } = await import('./cloud-serve-app.js');
        // The gateway and its replica share a token made for this run, as a deploy's share one
        // Secret: the replica's port answers only the gateway.
        const gatewayToken = newSecret();
        const server = await serveApp(context, {
          definition,
          gatewayToken,
          host: '127.0.0.1',
          port: options.replicaPort,
          relayPort: options.relayPort,
          profileDir: options.profileDir,
          log: say,
        });
        let model: string;
        try {
          model = await server.ready;
        } catch (error) {
          await server.close();
          throw toLmtabError(error, 'download_failed');
        }
        const route = {
          org: options.org,
          app,
          auth: options.auth,
          upstream: server.front.url,
          timeoutSeconds: definition.requestTimeoutSeconds,
        };
        const keyFile = defaultKeyFile(context.env);
        let gateway: Gateway;
        try {
          gateway = await createGateway({
            routes: [route],
            keys: createKeyFileReader(keyFile),
            host: options.host,
            port: options.port,
            replicaToken: gatewayToken,
            log: (line) => context.stderr(`${line}\n`),
          });
        } catch (error) {
          await server.close();
          throw toLmtabError(error, 'invalid_request');
        }
        const shown =
          options.host === '0.0.0.0' ? gateway.url.replace('0.0.0.0', 'localhost') : gateway.url;
        const base = `${shown}${routePrefix(route)}`;
        context.stdout(
          [
            `lmtab cloud run: ${routePrefix(route).slice(1)} (${options.auth}) serving ${model}`,
            `Base URL: ${base} (OpenAI: ${base}/v1, Ollama: ${base}/api)`,
            options.auth === 'private'
              ? `Every request needs the header: Authorization: Key <API_KEY> (keys from ${keyFile}: lmtab keys create)`
              : 'Public: no key needed.',
            '',
          ].join('\n'),
        );
        context.onServe?.(async () => {
          await gateway.close();
          await server.close();
        });
      }),
    );
}
