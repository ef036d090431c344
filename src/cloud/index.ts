export { applyManifests, runCommand } from './deploy/apply-manifests.js';
export type {
  ApplyManifestsOptions,
  ApplyResult,
  CommandResult,
  RunCommand,
} from './deploy/apply-manifests.js';
export {
  APP_AUTH_MODES,
  authorizeRequest,
  EXPECTED_AUTHORIZATION,
} from './gateway/authorize-request.js';
export type { AppAuth, AuthDecision } from './gateway/authorize-request.js';
export {
  CHROMIUM_ARGS_ENV,
  chromiumArgsFromEnv,
  CONTAINER_CHROMIUM_ARGS,
  GPU_CHROMIUM_ARGS,
  gpuChromiumArgs,
  hasNvidiaGpu,
  mergeChromiumArgs,
  NVIDIA_CHROMIUM_ARGS,
} from './chromium-args.js';
export type { NvidiaProbe } from './chromium-args.js';
export { createGateway } from './gateway/create-gateway.js';
export type { Gateway, GatewayOptions } from './gateway/create-gateway.js';
export { defineApp, isAppDefinition, MAX_KEEP_ALIVE_SECONDS } from './define-app.js';
export type { AppDefinition, AppOptions } from './define-app.js';
export { MANIFEST_FILES, planDeploy, routesFromGatewayYaml, toYaml } from './deploy/deploy-plan.js';
export type { DeployPlan, DeployPlanOptions } from './deploy/deploy-plan.js';
export { renderDockerfile, renderDockerignore } from './deploy/dockerfile.js';
export type { DockerfileOptions } from './deploy/dockerfile.js';
export { formatDuration, parseDuration } from './duration.js';
export { ENGINE_SETTINGS_KEY, headlessStorage, HUB_SETTINGS_KEY } from './headless-storage.js';
export { createGatewayConfigReader, parseGatewayConfig } from './gateway/gateway-config.js';
export { GATEWAY, gatewayArgs, gatewayManifests } from './deploy/gateway-manifests.js';
export type { GatewayManifestOptions } from './deploy/gateway-manifests.js';
export type { GatewayConfig } from './gateway/gateway-config.js';
export {
  formatAccessLog,
  forwardHeaders,
  matchGatewayRoute,
  routePrefix,
} from './gateway/gateway-routing.js';
export type {
  AccessLogEntry,
  ForwardedFacts,
  GatewayRoute,
  RouteMatch,
} from './gateway/gateway-routing.js';
export {
  createKeyFileReader,
  createKeyStore,
  defaultKeyFile,
  generateApiKey,
  hashApiKey,
  KEY_SCOPES,
  parseKeyFile,
  verifyApiKey,
} from './gateway/key-store.js';
export type {
  CreateKeyOptions,
  KeyCheck,
  KeyFile,
  KeyInfo,
  KeyRecord,
  KeyScope,
  KeyStore,
  KeyStoreOptions,
} from './gateway/key-store.js';
export { CONTAINER_PORT, GATEWAY_REPLICAS, OLLAMA_PORT } from './cloud-defaults.js';
export {
  appUpstreamUrl,
  commonLabels,
  DATA_DIR,
  knativeService,
  replicaArgs,
} from './deploy/knative-service.js';
export type { AppDeployment } from './deploy/knative-service.js';
export { loadApp, parseAppReference, suggestAppName } from './load-app.js';
export type { AppReference, LoadAppOptions, LoadedApp } from './load-app.js';
export { pullAndLoad, storedModelName } from './pull-and-load.js';
export type { PullAndLoadOptions } from './pull-and-load.js';
export {
  checkGatewayToken,
  GATEWAY_TOKEN_ENV,
  GATEWAY_TOKEN_HEADER,
  GATEWAY_TOKEN_SECRET,
  tokenFingerprint,
} from './gateway/gateway-token.js';
export { proxyRequest, sendWebResponse } from './gateway/proxy-request.js';
export type { ProxyTarget } from './gateway/proxy-request.js';
export { createReplicaFront } from './replica-front.js';
export type { ReplicaFront, ReplicaFrontOptions, ReplicaState } from './replica-front.js';
export { appServiceName, assertDnsLabel } from './resource-names.js';
export { startAppServer } from './start-app-server.js';
export type { AppServer, AppServerOptions, RunningRelay } from './start-app-server.js';
export {
  readExistingGatewayToken,
  readExistingRoutes,
  writeDeployFolder,
} from './deploy/write-deploy-folder.js';
export type { WriteDeployFolderOptions } from './deploy/write-deploy-folder.js';
export { parseJsonFile } from './parse-json-file.js';
