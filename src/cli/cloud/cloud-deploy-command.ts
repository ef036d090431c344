import { join, relative, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import {
  APP_AUTH_MODES,
  applyManifests,
  assertDnsLabel,
  createKeyStore,
  defaultKeyFile,
  GATEWAY,
  loadApp,
  planDeploy,
  readExistingGatewayToken,
  readExistingRoutes,
  routePrefix,
  writeDeployFolder,
} from '../../cloud/index.js';
import type { AppAuth } from '../../cloud/index.js';
import { newSecret } from '../../relay/index.js';
import { reportErrors } from './cloud-cli-context.js';
import type { CloudCliContext } from './cloud-cli-context.js';

/** Parses `--auth`: `private` or `public`. */
export function parseAuth(value: string): AppAuth {
  if (!APP_AUTH_MODES.includes(value as AppAuth)) {
    throw new InvalidArgumentError(`expected ${APP_AUTH_MODES.join(' or ')}, got "${value}"`);
  }
  return value as AppAuth;
}

/** Options of `lmtab cloud deploy`. */
export interface CloudDeployOptions {
  appName: string;
  auth: AppAuth;
  /** Default `default`. */
  org: string;
  /** Default `lmtab-deploy`. */
  out: string;
  /** Default `dev.local/lmtab:VERSION`. */
  image?: string;
  /** Default `lmtab`. */
  namespace: string;
  apply?: boolean;
}

/** Writes the deploy folder of an app file's app and applies it when asked. */
export async function runCloudDeploy(
  reference: string,
  options: CloudDeployOptions,
  context: CloudCliContext,
): Promise<void> {
  assertDnsLabel(options.appName, 'an app name');
  assertDnsLabel(options.org, 'an org');
  const loaded = await loadApp(reference, { cwd: context.cwd });
  const outDir = resolve(context.cwd, options.out);
  const image = options.image ?? `dev.local/lmtab:${context.version}`;
  const keys = await createKeyStore({ file: defaultKeyFile(context.env) }).records();
  const plan = planDeploy({
    definition: loaded.definition,
    org: options.org,
    app: options.appName,
    auth: options.auth,
    image,
    namespace: options.namespace,
    version: context.version,
    keys: { version: 1, keys },
    existingRoutes: await readExistingRoutes(outDir),
    gatewayToken: (await readExistingGatewayToken(outDir)) ?? newSecret(),
  });
  await writeDeployFolder({ outDir, plan, packageRoot: context.packageRoot });
  const relativeOut = relative(context.cwd, outDir);
  const shown = relativeOut === '' ? '.' : relativeOut;
  const prefix = routePrefix(plan.route);
  context.stdout(
    `Wrote ${shown}/ for ${prefix.slice(1)} (${options.auth}, ${loaded.definition.model}): ` +
      `${[...plan.files.keys()].filter((path) => path !== '.dockerignore').join(', ')}, lmtab/.\n`,
  );
  for (const warning of plan.warnings) context.stderr(`Warning: ${warning}\n`);
  context.stdout(
    [
      'Next:',
      `  docker build -t ${image} ${shown} && docker push ${image}`,
      `  kubectl apply -f ${join(shown, 'k8s')}`,
      `Then the base URL is http://EXTERNAL-IP${prefix}/v1, EXTERNAL-IP from: kubectl -n ${options.namespace} get service ${GATEWAY.name}`,
      ...(options.auth === 'private'
        ? ['Every request needs the header: Authorization: Key <API_KEY>']
        : []),
      '',
    ].join('\n'),
  );
  if (options.apply === true) {
    const result = await applyManifests({ outDir, run: context.run });
    context.stdout(`${result.message}\n${result.output ?? ''}`);
    if (!result.applied) process.exitCode = 1;
  }
}

/** `lmtab cloud deploy FILE.ts::serve --app-name NAME --auth private|public`. */
export function cloudDeployCommand(context: CloudCliContext): Command {
  return new Command('deploy')
    .description(
      'Write a deploy folder for an app: Dockerfile, Knative Service, gateway with API keys',
    )
    .argument('<app>', 'the app file and its export, FILE.ts::serve')
    .requiredOption('--app-name <name>', 'the app in the URL (/ORG/APP/v1) and in Kubernetes names')
    .requiredOption('--auth <auth>', 'private (Authorization: Key <API_KEY>) or public', parseAuth)
    .option('--org <org>', 'the org in the URL (/ORG/APP/v1)', 'default')
    .option(
      '--out <dir>',
      'the deploy folder (apps deployed from one folder share its gateway)',
      'lmtab-deploy',
    )
    .option(
      '--image <image>',
      'the lmtab image the cluster pulls (default dev.local/lmtab:VERSION)',
    )
    .option('--namespace <namespace>', 'the Kubernetes namespace', 'lmtab')
    .option('--apply', 'run kubectl apply when kubectl and a cluster with Knative are there')
    .action(
      reportErrors(context, async (reference: string, options: CloudDeployOptions) => {
        await runCloudDeploy(reference, options, context);
      }),
    );
}
