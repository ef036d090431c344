import { parseAllDocuments, stringify } from 'yaml';
import { LmtabError } from '../../errors/index.js';
import { renderDockerfile, renderDockerignore } from './dockerfile.js';
import { formatDuration } from '../duration.js';
import { GATEWAY, gatewayManifests } from './gateway-manifests.js';
import type { GatewayConfig } from '../gateway/gateway-config.js';
import { routePrefix } from '../gateway/gateway-routing.js';
import type { GatewayRoute } from '../gateway/gateway-routing.js';
import type { KeyFile } from '../gateway/key-store.js';
import { appUpstreamUrl, knativeService } from './knative-service.js';
import type { AppDeployment } from './knative-service.js';
import { appServiceName, assertDnsLabel } from '../resource-names.js';

/** What {@link planDeploy} needs. */
export interface DeployPlanOptions extends AppDeployment {
  /** The key file whose hashes the gateway gets (private apps check keys against them). */
  keys: KeyFile;
  /** Routes of apps deployed earlier from the same folder, kept in the gateway. */
  existingRoutes?: readonly GatewayRoute[];
  /**
   * The token the gateway adds and the replicas require: the folder's earlier one (see
   * `readExistingGatewayToken`), else a new random one.
   */
  gatewayToken: string;
}

/** The deploy folder's files, and what the user should know. */
export interface DeployPlan {
  /** Relative path -> content. */
  files: Map<string, string>;
  /** This app's route in the gateway. */
  route: GatewayRoute;
  /** Every route the gateway now serves. */
  routes: GatewayRoute[];
  /** Things that will not work as is, in plain words. */
  warnings: string[];
}

/** Where the manifests go inside a deploy folder; numbered so `kubectl apply -f` goes in order. */
export const MANIFEST_FILES = {
  namespace: 'k8s/00-namespace.yaml',
  gateway: 'k8s/10-gateway.yaml',
  app: (org: string, app: string) => `k8s/20-app-${appServiceName(org, app)}.yaml`,
} as const;

// Knative's default `max-revision-timeout-seconds`.
const knativeMaxTimeoutSeconds = 600;

/** YAML documents with a header comment, as `kubectl apply -f` reads them. */
export function toYaml(documents: readonly Record<string, unknown>[], header: string): string {
  const body = documents
    .map((document) => stringify(document, { lineWidth: 0, aliasDuplicateObjects: false }))
    .join('---\n');
  return `${header
    .split('\n')
    .map((line) => `# ${line}`.trimEnd())
    .join('\n')}\n${body}`;
}

/** The gateway routes in an earlier deploy's gateway manifest (none when it has no ConfigMap). */
export function routesFromGatewayYaml(text: string): GatewayRoute[] {
  for (const document of parseAllDocuments(text)) {
    if (!('toJS' in document)) continue;
    const value = document.toJS() as {
      kind?: string;
      metadata?: { name?: string };
      data?: Record<string, string>;
    } | null;
    if (value?.kind !== 'ConfigMap' || value.metadata?.name !== GATEWAY.name) continue;
    const json = value.data?.['gateway.json'];
    if (json === undefined) return [];
    try {
      return (JSON.parse(json) as GatewayConfig).routes ?? [];
    } catch (error) {
      throw new LmtabError(
        'invalid_request',
        `Expected gateway.json in the ${GATEWAY.name} ConfigMap to be JSON, got: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  return [];
}

/**
 * Plans a deploy folder for one app: the Dockerfile of the lmtab image, the namespace, the app's
 * Knative Service and the gateway (with this app's route added to those deployed before), and a
 * README with the commands to build, push and apply. Pure: writing is {@link writeDeployFolder}'s.
 */
export function planDeploy(options: DeployPlanOptions): DeployPlan {
  assertDnsLabel(options.namespace, 'a namespace');
  const { definition: app } = options;
  const route: GatewayRoute = {
    org: options.org,
    app: options.app,
    auth: options.auth,
    upstream: appUpstreamUrl(options),
    timeoutSeconds: app.requestTimeoutSeconds,
  };
  const routes = [
    ...(options.existingRoutes ?? []).filter(
      (existing) => existing.org !== route.org || existing.app !== route.app,
    ),
    route,
  ].sort((a, b) => routePrefix(a).localeCompare(routePrefix(b)));
  const header = (what: string) =>
    `${what}\nWritten by \`lmtab cloud deploy\` (lmtab ${options.version}): change the app file and deploy again rather than editing.`;
  const files = new Map<string, string>();
  files.set('Dockerfile', renderDockerfile({ from: 'prebuilt' }));
  files.set('.dockerignore', renderDockerignore({ from: 'prebuilt' }));
  files.set(
    MANIFEST_FILES.namespace,
    toYaml(
      [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: options.namespace } }],
      header("The namespace of lmtab's apps and gateway."),
    ),
  );
  files.set(
    MANIFEST_FILES.gateway,
    toYaml(
      gatewayManifests({
        routes,
        keys: options.keys,
        image: options.image,
        namespace: options.namespace,
        version: options.version,
        gatewayToken: options.gatewayToken,
      }),
      header(
        `The gateway: the public URL, API keys, and routes to ${routes.length === 1 ? 'the app' : `${routes.length} apps`}.`,
      ),
    ),
  );
  files.set(
    MANIFEST_FILES.app(options.org, options.app),
    toYaml(
      [knativeService(options, { gatewayToken: options.gatewayToken })],
      header(`The app ${options.org}/${options.app}: ${app.model}, inside the cluster only.`),
    ),
  );

  const warnings: string[] = [];
  if (app.requestTimeoutSeconds > knativeMaxTimeoutSeconds) {
    warnings.push(
      `requestTimeout is ${formatDuration(app.requestTimeoutSeconds)}, above Knative's default limit of 600s: raise max-revision-timeout-seconds in the knative-serving/config-defaults ConfigMap, or Knative will refuse the Service.`,
    );
  }
  const usable = options.keys.keys.filter((key) => key.revoked === null);
  if (routes.some((each) => each.auth === 'private') && usable.length === 0) {
    warnings.push(
      'No valid API keys yet, so private apps will refuse every request: run `lmtab keys create`, then deploy again to ship its hash.',
    );
  }
  if (options.image.startsWith('dev.local/')) {
    warnings.push(
      `The image ${options.image} exists only where you build it (kind or minikube can load it); pass --image with your registry for a real cluster.`,
    );
  }
  files.set('README.md', renderDeployReadme(options, route, routes));
  return { files, route, routes, warnings };
}

function renderDeployReadme(
  options: DeployPlanOptions,
  route: GatewayRoute,
  routes: readonly GatewayRoute[],
): string {
  const { definition: app, namespace } = options;
  const prefix = routePrefix(route);
  const auth = route.auth === 'private' ? ' -H "Authorization: Key $LMTAB_API_KEY"' : '';
  return [
    `# lmtab deploy folder`,
    '',
    `Written by \`lmtab cloud deploy\` (lmtab ${options.version}). Apps: ${routes.map((each) => `\`${routePrefix(each)}\` (${each.auth})`).join(', ')}.`,
    '',
    '| file | what |',
    '| --- | --- |',
    '| `Dockerfile`, `lmtab/` | the lmtab image: Node 20, lmtab built, Debian Chromium, a volume at /data for the browser profile |',
    '| `k8s/00-namespace.yaml` | the namespace |',
    '| `k8s/10-gateway.yaml` | the gateway (ConfigMap of routes, Secret of key hashes, Deployment, LoadBalancer Service): the public URL and API keys; the Secret of the token the apps accept from the gateway alone, and the NetworkPolicy that admits only the gateway and Knative to the apps (keep this file private) |',
    `| \`${MANIFEST_FILES.app(options.org, options.app)}\` | the Knative Service of ${options.org}/${options.app}, reachable only inside the cluster |`,
    '',
    '## Needs',
    '',
    '- Kubernetes with Knative Serving and a networking layer (Kourier, Istio or Contour).',
    ...(app.gpu
      ? [
          '- GPU nodes with the NVIDIA device plugin (`nvidia.com/gpu`) and the NVIDIA container runtime.',
        ]
      : []),
    '- A registry the cluster pulls from.',
    '',
    '## Steps',
    '',
    '```sh',
    `docker build -t ${options.image} . && docker push ${options.image}`,
    'kubectl apply -f k8s/',
    `kubectl -n ${namespace} get service ${GATEWAY.name}   # EXTERNAL-IP: the public address`,
    `curl${auth} http://EXTERNAL-IP${prefix}/v1/models`,
    '```',
    '',
    `The base URL is \`http://EXTERNAL-IP${prefix}/v1\` (\`${prefix}/api\` for Ollama clients); put TLS in front (a load balancer certificate or an Ingress) to serve it as \`https://HOST${prefix}/v1\`.`,
    route.auth === 'private'
      ? 'Private apps need `Authorization: Key <API_KEY>` on every request; make keys with `lmtab keys create`, and deploy again (or `--apply`) after creating or revoking keys: the gateway picks the new hashes up without a restart.'
      : 'This app is public: no key needed.',
    '',
    `Autoscaling: ${app.minReplicas} to ${app.maxReplicas} replicas, ${app.targetConcurrency} requests in flight per replica as the target, at most ${app.maxConcurrency === 0 ? 'unlimited' : app.maxConcurrency}; a replica stays ${formatDuration(app.keepAliveSeconds)} after load drops. Each replica keeps its browser profile (downloaded weights) in an emptyDir of ${app.storage}: it survives container restarts, not a new pod, which downloads the model again.`,
    '',
  ].join('\n');
}
