import type { AppAuth } from '../gateway/authorize-request.js';
import { CHROMIUM_ARGS_ENV, CONTAINER_CHROMIUM_ARGS, GPU_CHROMIUM_ARGS } from '../chromium-args.js';
import type { AppDefinition } from '../define-app.js';
import { formatDuration } from '../duration.js';
import { gatewayTokenEnv, tokenFingerprint } from '../gateway/gateway-token.js';
import { appServiceName } from '../resource-names.js';
import { CONTAINER_PORT } from '../cloud-defaults.js';

/** One app as deployed: its definition and where it goes. */
export interface AppDeployment {
  definition: AppDefinition;
  /** Org segment of the URL (`/ORG/APP`); a DNS label. */
  org: string;
  /** App segment of the URL; a DNS label. */
  app: string;
  auth: AppAuth;
  /** Container image of lmtab, e.g. `registry.example.com/lmtab:0.1.0`. */
  image: string;
  /** Kubernetes namespace of the app and the gateway. */
  namespace: string;
  /** lmtab's version, recorded in labels. */
  version: string;
}

/** Options of {@link knativeService}. */
export interface KnativeServiceOptions {
  /**
   * The gateway token (see `gateway-token.ts`): the replicas read it from its Secret, and its
   * fingerprint on the pod template makes a new token roll out a new revision.
   */
  gatewayToken: string;
}

/** Where the image keeps lmtab's data, the browser profile (downloaded weights) included. */
export const DATA_DIR = '/data';

/** Labels shared by everything lmtab deploys. */
export function commonLabels(
  version: string,
  component: 'app' | 'gateway',
): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'lmtab',
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/managed-by': 'lmtab',
    'app.kubernetes.io/version': version,
  };
}

/** The arguments of `lmtab cloud replica` that serve an app's model in one replica. */
export function replicaArgs(definition: AppDefinition, port = CONTAINER_PORT): string[] {
  return [
    'cloud',
    'replica',
    '--model',
    definition.model,
    '--context-length',
    String(definition.contextLength),
    '--parallel',
    String(definition.parallel),
    '--keep-alive',
    formatDuration(definition.keepAliveSeconds),
    '--host',
    '0.0.0.0',
    '--port',
    String(port),
  ];
}

/** The in-cluster URL of an app's Knative Service (cluster-local, port 80). */
export function appUpstreamUrl(
  deployment: Pick<AppDeployment, 'org' | 'app' | 'namespace'>,
): string {
  return `http://${appServiceName(deployment.org, deployment.app)}.${deployment.namespace}.svc.cluster.local`;
}

/**
 * The Knative Service of an app: reachable only inside the cluster (the gateway owns the public
 * URL), scaled on concurrency by the KPA between min and max replicas (zero allowed), kept for
 * `keepAlive` after load drops, one request limited to `requestTimeout`, one NVIDIA GPU when asked,
 * and an emptyDir for the browser profile so a restarted container keeps its downloaded weights;
 * its replicas answer only requests carrying the gateway's token.
 */
export function knativeService(
  deployment: AppDeployment,
  options: KnativeServiceOptions,
): Record<string, unknown> {
  const { definition: app, version } = deployment;
  const name = appServiceName(deployment.org, deployment.app);
  const appLabels = {
    ...commonLabels(version, 'app'),
    'lmtab/org': deployment.org,
    'lmtab/app': deployment.app,
  };
  const requests: Record<string, string> = {};
  const limits: Record<string, string | number> = {};
  if (app.cpu !== undefined) requests.cpu = app.cpu;
  if (app.memory !== undefined) {
    requests.memory = app.memory;
    limits.memory = app.memory;
  }
  if (app.gpu) limits['nvidia.com/gpu'] = 1;
  const env: Record<string, unknown>[] = [
    { name: 'LMTAB_HOME', value: DATA_DIR },
    // Requests without the gateway's token are refused: only the gateway reaches the app.
    gatewayTokenEnv(),
    // Gated and private hub repositories need a token; the Secret is optional.
    {
      name: 'HF_TOKEN',
      valueFrom: { secretKeyRef: { name: 'lmtab-hf-token', key: 'token', optional: true } },
    },
  ];
  if (app.gpu) {
    env.push({
      name: CHROMIUM_ARGS_ENV,
      value: [...CONTAINER_CHROMIUM_ARGS, ...GPU_CHROMIUM_ARGS].join(' '),
    });
  }
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: deployment.namespace,
      labels: { ...appLabels, 'networking.knative.dev/visibility': 'cluster-local' },
      annotations: { 'lmtab/model': app.model, 'lmtab/auth': deployment.auth },
    },
    spec: {
      template: {
        metadata: {
          labels: appLabels,
          annotations: {
            'autoscaling.knative.dev/class': 'kpa.autoscaling.knative.dev',
            'autoscaling.knative.dev/metric': 'concurrency',
            'autoscaling.knative.dev/target': String(app.targetConcurrency),
            'autoscaling.knative.dev/min-scale': String(app.minReplicas),
            'autoscaling.knative.dev/max-scale': String(app.maxReplicas),
            'autoscaling.knative.dev/scale-down-delay': formatDuration(app.keepAliveSeconds),
            'serving.knative.dev/progress-deadline': formatDuration(app.startupTimeoutSeconds),
            'lmtab/gateway-token': tokenFingerprint(options.gatewayToken),
          },
        },
        spec: {
          containerConcurrency: app.maxConcurrency,
          timeoutSeconds: app.requestTimeoutSeconds,
          containers: [
            {
              name: 'engine',
              image: deployment.image,
              args: replicaArgs(app),
              ports: [{ name: 'http1', containerPort: CONTAINER_PORT }],
              env,
              // Ready once the model is loaded, so Knative routes nothing to a replica still downloading.
              readinessProbe: {
                httpGet: { path: '/health/ready' },
                periodSeconds: 2,
                failureThreshold: 3,
              },
              ...(Object.keys(requests).length + Object.keys(limits).length > 0
                ? {
                    resources: {
                      ...(Object.keys(requests).length > 0 ? { requests } : {}),
                      ...(Object.keys(limits).length > 0 ? { limits } : {}),
                    },
                  }
                : {}),
              volumeMounts: [{ name: 'profile', mountPath: DATA_DIR }],
            },
          ],
          volumes: [{ name: 'profile', emptyDir: { sizeLimit: app.storage } }],
        },
      },
    },
  };
}
