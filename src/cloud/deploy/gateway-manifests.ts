import type { GatewayRoute } from '../gateway/gateway-routing.js';
import type { KeyFile } from '../gateway/key-store.js';
import { parseAllDocuments } from 'yaml';
import {
  GATEWAY_TOKEN_SECRET,
  gatewayTokenEnv,
  tokenFingerprint,
} from '../gateway/gateway-token.js';
import { CONTAINER_PORT, GATEWAY_REPLICAS } from '../cloud-defaults.js';
import { commonLabels } from './knative-service.js';
import type { GatewayConfig } from '../gateway/gateway-config.js';

/** What {@link gatewayManifests} needs. */
export interface GatewayManifestOptions {
  routes: readonly GatewayRoute[];
  /** The key file to ship as a Secret: salted hashes only. */
  keys: KeyFile;
  image: string;
  namespace: string;
  version: string;
  /** Gateway replicas; default {@link GATEWAY_REPLICAS}. */
  replicas?: number;
  /** The token the gateway adds to requests and the apps' replicas require (a Secret). */
  gatewayToken: string;
}

/**
 * Namespaces whose pods must reach app pods besides the gateway: Knative's activator and
 * autoscaler (`knative-serving`) and the networking layers' ingress (Kourier, Istio, Contour).
 */
export const KNATIVE_NAMESPACES = [
  'knative-serving',
  'kourier-system',
  'istio-system',
  'contour-internal',
  'contour-external',
] as const;

/**
 * The NetworkPolicy of the apps' pods: ingress only from the gateway and Knative's own
 * components, so that no other pod reaches a replica by its address. Pods can still reach the
 * cluster-local ingress, which Knative routes to the apps: the gateway token is what refuses them.
 */
export function appNetworkPolicy(namespace: string, version: string): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'lmtab-apps', namespace, labels: commonLabels(version, 'app') },
    spec: {
      podSelector: {
        matchLabels: { 'app.kubernetes.io/name': 'lmtab', 'app.kubernetes.io/component': 'app' },
      },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              podSelector: {
                matchLabels: {
                  'app.kubernetes.io/name': 'lmtab',
                  'app.kubernetes.io/component': 'gateway',
                },
              },
            },
            ...KNATIVE_NAMESPACES.map((name) => ({
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } },
            })),
          ],
        },
      ],
    },
  };
}

/** Names of the gateway's resources and where its files are mounted. */
export const GATEWAY = {
  name: 'lmtab-gateway',
  keysSecret: 'lmtab-gateway-keys',
  configDir: '/etc/lmtab/gateway',
  keysDir: '/etc/lmtab/keys',
} as const;

/** The `lmtab cloud gateway` arguments the gateway container runs. */
export function gatewayArgs(port = CONTAINER_PORT): string[] {
  return [
    'cloud',
    'gateway',
    '--config',
    `${GATEWAY.configDir}/gateway.json`,
    '--keys',
    `${GATEWAY.keysDir}/keys.json`,
    '--host',
    '0.0.0.0',
    '--port',
    String(port),
  ];
}

/**
 * The gateway, which owns the public URL: a ConfigMap with its routes, a Secret with the key
 * hashes, a Deployment running `lmtab cloud gateway` (it reads both files again when Kubernetes
 * updates them, so new routes and revoked keys apply without a restart), and a LoadBalancer
 * Service; with them the Secret of the token the apps' replicas require from the gateway and the
 * apps' NetworkPolicy (see {@link appNetworkPolicy}).
 */
export function gatewayManifests(options: GatewayManifestOptions): Record<string, unknown>[] {
  const labels = commonLabels(options.version, 'gateway');
  const selector = { 'app.kubernetes.io/name': 'lmtab', 'app.kubernetes.io/component': 'gateway' };
  const metadata = (name: string) => ({ name, namespace: options.namespace, labels });
  const config: GatewayConfig = { routes: [...options.routes] };
  const probe = { httpGet: { path: '/health', port: 'http' }, periodSeconds: 10 };
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: metadata(GATEWAY.name),
      data: { 'gateway.json': `${JSON.stringify(config, null, 2)}\n` },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: metadata(GATEWAY_TOKEN_SECRET.name),
      type: 'Opaque',
      stringData: { [GATEWAY_TOKEN_SECRET.key]: options.gatewayToken },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: metadata(GATEWAY.keysSecret),
      type: 'Opaque',
      stringData: { 'keys.json': `${JSON.stringify(options.keys, null, 2)}\n` },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: metadata(GATEWAY.name),
      spec: {
        replicas: options.replicas ?? GATEWAY_REPLICAS,
        selector: { matchLabels: selector },
        template: {
          // A new token rolls the gateway out with it (its environment is read at start).
          metadata: {
            labels,
            annotations: { 'lmtab/gateway-token': tokenFingerprint(options.gatewayToken) },
          },
          spec: {
            automountServiceAccountToken: false,
            securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
            containers: [
              {
                name: 'gateway',
                image: options.image,
                args: gatewayArgs(),
                env: [gatewayTokenEnv()],
                ports: [{ name: 'http', containerPort: CONTAINER_PORT }],
                readinessProbe: probe,
                livenessProbe: probe,
                resources: {
                  requests: { cpu: '100m', memory: '128Mi' },
                  limits: { memory: '512Mi' },
                },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
                volumeMounts: [
                  { name: 'config', mountPath: GATEWAY.configDir, readOnly: true },
                  { name: 'keys', mountPath: GATEWAY.keysDir, readOnly: true },
                ],
              },
            ],
            volumes: [
              { name: 'config', configMap: { name: GATEWAY.name } },
              { name: 'keys', secret: { secretName: GATEWAY.keysSecret } },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: metadata(GATEWAY.name),
      spec: {
        type: 'LoadBalancer',
        selector,
        ports: [{ name: 'http', port: 80, targetPort: 'http' }],
      },
    },
    appNetworkPolicy(options.namespace, options.version),
  ];
}

/** The token in an earlier deploy's gateway manifest, so that a new deploy keeps it. */
export function gatewayTokenFromYaml(text: string): string | undefined {
  for (const document of parseAllDocuments(text)) {
    if (!('toJS' in document)) continue;
    const value = document.toJS() as {
      kind?: string;
      metadata?: { name?: string };
      stringData?: Record<string, string>;
    } | null;
    if (value?.kind !== 'Secret' || value.metadata?.name !== GATEWAY_TOKEN_SECRET.name) continue;
    const token = value.stringData?.[GATEWAY_TOKEN_SECRET.key];
    return typeof token === 'string' && token !== '' ? token : undefined;
  }
  return undefined;
}
