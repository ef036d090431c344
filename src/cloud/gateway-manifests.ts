import type { GatewayRoute } from './gateway-routing.js';
import type { KeyFile } from './key-store.js';
import { commonLabels, CONTAINER_PORT } from './knative-service.js';

/** The gateway's configuration file (`gateway.json`): the apps it fronts. */
export interface GatewayConfig {
  routes: GatewayRoute[];
}

/** What {@link gatewayManifests} needs. */
export interface GatewayManifestOptions {
  routes: readonly GatewayRoute[];
  /** The key file to ship as a Secret: salted hashes only. */
  keys: KeyFile;
  image: string;
  namespace: string;
  version: string;
  /** Gateway replicas; default 2 (one can restart while the other serves). */
  replicas?: number;
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
 * updates them, so new routes and revoked keys apply without a restart), and a LoadBalancer Service.
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
      metadata: metadata(GATEWAY.keysSecret),
      type: 'Opaque',
      stringData: { 'keys.json': `${JSON.stringify(options.keys, null, 2)}\n` },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: metadata(GATEWAY.name),
      spec: {
        replicas: options.replicas ?? 2,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
            containers: [
              {
                name: 'gateway',
                image: options.image,
                args: gatewayArgs(),
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
  ];
}
