import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Service as KnativeService } from '@kubernetes-models/knative/serving.knative.dev/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { defineApp } from '../define-app.js';
import type { AppDefinition } from '../define-app.js';
import { parseDuration } from '../duration.js';
import { MANIFEST_FILES, planDeploy, routesFromGatewayYaml } from './deploy-plan.js';
import type { DeployPlan, DeployPlanOptions } from './deploy-plan.js';
import type { GatewayConfig } from '../gateway/gateway-config.js';
import { parseKeyFile } from '../gateway/key-store.js';
import type { KeyFile } from '../gateway/key-store.js';
import { loadApp } from '../load-app.js';

type Manifest = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const fixtures = fileURLToPath(new URL('../../../tests/fixtures/cloud/', import.meta.url));
const validators: Record<string, (value: Manifest) => void> = {
  'v1/Namespace': (value) => new Namespace(value as never).validate(),
  'v1/ConfigMap': (value) => new ConfigMap(value as never).validate(),
  'v1/Secret': (value) => new Secret(value as never).validate(),
  'v1/Service': (value) => new Service(value as never).validate(),
  'apps/v1/Deployment': (value) => new Deployment(value as never).validate(),
  'networking.k8s.io/v1/NetworkPolicy': (value) => new NetworkPolicy(value as never).validate(),
  'serving.knative.dev/v1/Service': (value) => new KnativeService(value as never).validate(),
};

const gatewayToken = '0123456789abcdef'.repeat(4);
let sample: AppDefinition;
let keys: KeyFile;
let plan: DeployPlan;

function options(overrides: Partial<DeployPlanOptions> = {}): DeployPlanOptions {
  return {
    definition: sample,
    org: 'acme',
    app: 'chat',
    auth: 'private',
    image: 'registry.example.com/acme/lmtab:0.1.0',
    namespace: 'lmtab',
    version: '0.1.0',
    keys,
    gatewayToken,
    ...overrides,
  };
}

function documents(text: string): Manifest[] {
  return parseAllDocuments(text).map((document) => {
    expect('errors' in document ? document.errors : []).toEqual([]);
    return document.toJS() as Manifest;
  });
}

function allManifests(deploy: DeployPlan): Manifest[] {
  return [...deploy.files]
    .filter(([path]) => path.endsWith('.yaml'))
    .flatMap(([, text]) => documents(text));
}

function knativeOf(deploy: DeployPlan): Manifest {
  return documents(deploy.files.get(MANIFEST_FILES.app('acme', 'chat')) ?? '')[0] ?? {};
}

function gatewayOf(deploy: DeployPlan): Manifest[] {
  return documents(deploy.files.get(MANIFEST_FILES.gateway) ?? '');
}

beforeAll(async () => {
  sample = (await loadApp(`${fixtures}sample-app.ts::serve`)).definition;
  keys = parseKeyFile(await readFile(`${fixtures}sample-keys.json`, 'utf8'));
  plan = planDeploy(options());
}, 60_000);

describe('planDeploy for the sample app', { timeout: 60_000 }, () => {
  it('matches the golden files', async () => {
    expect([...plan.files.keys()].sort()).toEqual([
      '.dockerignore',
      'Dockerfile',
      'README.md',
      'k8s/00-namespace.yaml',
      'k8s/10-gateway.yaml',
      'k8s/20-app-acme-chat.yaml',
    ]);
    for (const [path, content] of plan.files) {
      await expect(content).toMatchFileSnapshot(`${fixtures}golden/${path}.golden`);
    }
    expect(plan.warnings).toEqual([]);
  });

  it('writes manifests valid against the Kubernetes and Knative schemas', () => {
    const manifests = allManifests(plan);
    expect(manifests.map((manifest) => `${manifest.apiVersion}/${manifest.kind}`)).toEqual([
      'v1/Namespace',
      'v1/ConfigMap',
      'v1/Secret',
      'v1/Secret',
      'apps/v1/Deployment',
      'v1/Service',
      'networking.k8s.io/v1/NetworkPolicy',
      'serving.knative.dev/v1/Service',
    ]);
    for (const manifest of manifests) {
      const validate = validators[`${manifest.apiVersion}/${manifest.kind}`];
      expect(validate).toBeDefined();
      expect(() => validate?.(manifest)).not.toThrow();
      expect(manifest.metadata.namespace ?? manifest.metadata.name).toBe('lmtab');
    }
  });

  it('has validators that do catch a broken manifest', () => {
    const broken = knativeOf(plan);
    broken.spec.template.spec.containerConcurrency = 'eight';
    expect(() => validators['serving.knative.dev/v1/Service']?.(broken)).toThrow(
      /containerConcurrency must be integer/,
    );
    const deployment = gatewayOf(plan)[3] ?? {};
    deployment.spec.replicas = '2';
    expect(() => validators['apps/v1/Deployment']?.(deployment)).toThrow(
      /replicas must be integer/,
    );
  });

  it('scales the Knative Service on concurrency with the KPA, to zero, after keepAlive', () => {
    const service = knativeOf(plan);
    expect(service.metadata.name).toBe('acme-chat');
    expect(service.metadata.labels['networking.knative.dev/visibility']).toBe('cluster-local');
    const annotations = service.spec.template.metadata.annotations as Record<string, string>;
    expect(annotations).toMatchObject({
      'autoscaling.knative.dev/class': 'kpa.autoscaling.knative.dev',
      'autoscaling.knative.dev/metric': 'concurrency',
      'autoscaling.knative.dev/target': '4',
      'autoscaling.knative.dev/min-scale': '0',
      'autoscaling.knative.dev/max-scale': '4',
      'autoscaling.knative.dev/scale-down-delay': '5m',
      'serving.knative.dev/progress-deadline': '20m',
    });
    // Annotations are strings to Kubernetes; Knative parses them, so check what it would accept.
    for (const value of Object.values(annotations)) expect(typeof value).toBe('string');
    const delay = parseDuration(annotations['autoscaling.knative.dev/scale-down-delay'] ?? '');
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThanOrEqual(3600);
    const target = Number(annotations['autoscaling.knative.dev/target']);
    const min = Number(annotations['autoscaling.knative.dev/min-scale']);
    const max = Number(annotations['autoscaling.knative.dev/max-scale']);
    expect([target, min, max].every(Number.isInteger)).toBe(true);
    expect(min).toBeLessThanOrEqual(max);
    const spec = service.spec.template.spec;
    expect(spec.timeoutSeconds).toBe(600);
    expect(spec.containerConcurrency).toBe(8);
    expect(spec.containerConcurrency).toBeGreaterThanOrEqual(target);
  });

  it('follows the Knative rules the schema does not check', () => {
    const spec = knativeOf(plan).spec.template.spec;
    expect(spec.containers).toHaveLength(1);
    const [container] = spec.containers;
    expect(container.ports).toEqual([{ name: 'http1', containerPort: 8080 }]);
    // A probe port other than the serving port is refused; none means the serving port.
    expect(container.readinessProbe.httpGet.port).toBeUndefined();
    // Volume types allowed without feature flags: emptyDir, configMap, secret, projected.
    for (const volume of spec.volumes) {
      expect(Object.keys(volume).filter((key) => key !== 'name')).toEqual([
        expect.stringMatching(/^(emptyDir|configMap|secret|projected)$/),
      ]);
    }
    expect(container.volumeMounts).toEqual([{ name: 'profile', mountPath: '/data' }]);
    expect(spec.volumes).toEqual([{ name: 'profile', emptyDir: { sizeLimit: '20Gi' } }]);
    // fieldRef, nodeSelector, tolerations and affinity need feature flags that are off by default.
    expect(JSON.stringify(container.env)).not.toContain('fieldRef');
    expect(spec.nodeSelector).toBeUndefined();
    expect(spec.tolerations).toBeUndefined();
    expect(spec.affinity).toBeUndefined();
  });

  it('asks for one NVIDIA GPU with the Vulkan flags, and none without gpu', () => {
    const container = knativeOf(plan).spec.template.spec.containers[0];
    expect(container.resources).toEqual({ limits: { 'nvidia.com/gpu': 1 } });
    expect(container.env).toContainEqual({
      name: 'LMTAB_CHROMIUM_ARGS',
      value: expect.stringContaining('--use-angle=vulkan'),
    });
    const cpu = planDeploy(
      options({ definition: defineApp({ model: sample.model, memory: '8Gi', cpu: '2' }) }),
    );
    const plain = knativeOf(cpu).spec.template.spec.containers[0];
    expect(plain.resources).toEqual({
      requests: { cpu: '2', memory: '8Gi' },
      limits: { memory: '8Gi' },
    });
    expect(JSON.stringify(plain.env)).not.toContain('LMTAB_CHROMIUM_ARGS');
  });

  it('wires the gateway: selectors, ports, mounted config and key hashes, route to the app', () => {
    const [configMap, , secret, deployment, service] = gatewayOf(plan) as Manifest[];
    const podLabels = deployment?.spec.template.metadata.labels;
    expect(podLabels).toMatchObject(deployment?.spec.selector.matchLabels);
    expect(podLabels).toMatchObject(service?.spec.selector);
    expect(service?.spec.type).toBe('LoadBalancer');
    const container = deployment?.spec.template.spec.containers[0];
    expect(container.ports.map((port: Manifest) => port.name)).toContain(
      service?.spec.ports[0].targetPort,
    );
    expect(deployment?.spec.template.spec.volumes).toEqual([
      { name: 'config', configMap: { name: configMap?.metadata.name } },
      { name: 'keys', secret: { secretName: secret?.metadata.name } },
    ]);
    const config = JSON.parse(configMap?.data['gateway.json']) as GatewayConfig;
    const app = knativeOf(plan);
    expect(config.routes).toEqual([
      {
        org: 'acme',
        app: 'chat',
        auth: 'private',
        upstream: `http://${app.metadata.name}.${app.metadata.namespace}.svc.cluster.local`,
        timeoutSeconds: 600,
      },
    ]);
    expect(parseKeyFile(secret?.stringData['keys.json'])).toEqual(keys);
    expect(secret?.stringData['keys.json']).not.toMatch(/lmtab_[A-Za-z0-9_-]{43}/);
  });
});

describe('planDeploy keeps the apps behind their gateway', { timeout: 60_000 }, () => {
  it('gives the gateway and the replicas one token from a Secret, rolled out with its fingerprint', () => {
    const [, tokenSecret, , deployment] = gatewayOf(plan) as Manifest[];
    expect(tokenSecret).toMatchObject({
      kind: 'Secret',
      metadata: { name: 'lmtab-gateway-token', namespace: 'lmtab' },
      stringData: { token: gatewayToken },
    });
    const fromSecret = {
      name: 'LMTAB_GATEWAY_TOKEN',
      valueFrom: { secretKeyRef: { name: 'lmtab-gateway-token', key: 'token' } },
    };
    expect(deployment?.spec.template.spec.containers[0].env).toEqual([fromSecret]);
    const app = knativeOf(plan).spec.template;
    expect(app.spec.containers[0].env).toContainEqual(fromSecret);
    const fingerprint = deployment?.spec.template.metadata.annotations['lmtab/gateway-token'];
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(app.metadata.annotations['lmtab/gateway-token']).toBe(fingerprint);
    expect(JSON.stringify(knativeOf(plan))).not.toContain(gatewayToken);
    const other = planDeploy(options({ gatewayToken: 'f'.repeat(64) }));
    expect(knativeOf(other).spec.template.metadata.annotations['lmtab/gateway-token']).not.toBe(
      fingerprint,
    );
  });

  it('admits only the gateway and Knative to the app pods', () => {
    const policy = gatewayOf(plan).find((manifest) => manifest.kind === 'NetworkPolicy');
    const appPods = knativeOf(plan).spec.template.metadata.labels as Record<string, string>;
    expect(appPods).toMatchObject(policy?.spec.podSelector.matchLabels);
    expect(policy?.spec.policyTypes).toEqual(['Ingress']);
    const [rule] = policy?.spec.ingress as Manifest[];
    const gatewayPods = (gatewayOf(plan)[3] ?? {}).spec.template.metadata.labels;
    expect(gatewayPods).toMatchObject(rule?.from[0].podSelector.matchLabels);
    expect(rule?.from.slice(1)).toEqual(
      [
        'knative-serving',
        'kourier-system',
        'istio-system',
        'contour-internal',
        'contour-external',
      ].map((name) => ({
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } },
      })),
    );
  });
});

describe('planDeploy with other apps and settings', () => {
  it('keeps earlier apps in the gateway and replaces the same app', () => {
    const earlier = routesFromGatewayYaml(plan.files.get(MANIFEST_FILES.gateway) ?? '');
    expect(earlier.map((route) => `${route.org}/${route.app}`)).toEqual(['acme/chat']);
    const second = planDeploy(options({ app: 'open', auth: 'public', existingRoutes: earlier }));
    expect(second.routes.map((route) => [route.app, route.auth])).toEqual([
      ['chat', 'private'],
      ['open', 'public'],
    ]);
    const again = planDeploy(options({ auth: 'public', existingRoutes: second.routes }));
    expect(again.routes.map((route) => [route.app, route.auth])).toEqual([
      ['chat', 'public'],
      ['open', 'public'],
    ]);
    expect(routesFromGatewayYaml('kind: Deployment\n')).toEqual([]);
  });

  it('warns about long timeouts, missing keys and a dev.local image', () => {
    const deploy = planDeploy(
      options({
        definition: defineApp({ model: sample.model, requestTimeout: '15m' }),
        keys: { version: 1, keys: keys.keys.filter((key) => key.revoked !== null) },
        image: 'dev.local/lmtab:0.1.0',
      }),
    );
    expect(deploy.warnings).toEqual([
      expect.stringMatching(
        /^requestTimeout is 15m, above Knative's default limit of 600s: raise max-revision-timeout-seconds/,
      ),
      expect.stringMatching(/^No valid API keys yet/),
      expect.stringMatching(/^The image dev.local\/lmtab:0.1.0 exists only where you build it/),
    ]);
  });

  it('refuses names Kubernetes and Knative would refuse', () => {
    expect(() => planDeploy(options({ app: 'Chat' }))).toThrow(
      /Expected an app name of lower case letters/,
    );
    expect(() => planDeploy(options({ org: 'a'.repeat(30), app: 'b'.repeat(30) }))).toThrow(
      /at most 49 characters/,
    );
    expect(() => planDeploy(options({ namespace: 'my_ns' }))).toThrow(/Expected a namespace/);
  });
});
