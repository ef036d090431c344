/**
 * Every fixed port the tests and the benchmark listen on, in one table so that no two collide.
 *
 * They lie below Linux's ephemeral range (32768 to 60999 by default), the range the kernel draws the
 * local port of every outgoing connection and every `listen(0)` from. A listener on a fixed port
 * inside that range fails with EADDRINUSE whenever a browser's or a client's socket happens to hold
 * that port at the moment, which failed CI once in a few full runs (41310, then 41330).
 * `test-ports.test.ts` checks the table against this machine's range.
 *
 * `LMTAB_TEST_PORT_OFFSET` (default 0, at most 2000) shifts every port, so that two checkouts can
 * run their suites on one machine at once.
 */
const offset = portOffset(process.env.LMTAB_TEST_PORT_OFFSET);

function portOffset(text: string | undefined): number {
  const value = Number(text ?? 0);
  if (!Number.isInteger(value) || value < 0 || value > 2000) {
    throw new Error(
      `LMTAB_TEST_PORT_OFFSET: expected a whole number 0 to 2000, received "${text}"`,
    );
  }
  return value;
}

const basePorts = {
  /** Playwright's webServer: the built app behind the relay (`LMTAB_TEST_PORT` overrides). */
  app: 21234,
  relayBare: 21310,
  relayLan: 21311,
  relayEngines: 21312,
  relayHeadless: 21313,
  relayCors: 21314,
  relayUnit: 21315,
  relayPull: 21316,
  /** The streamed-upload spec's relay (2 GiB through the relay into a tab). */
  relayUpload: 21317,
  /** tools.spec.ts: Node clients (openai, AI SDK, LangChain, ollama) through the relay. */
  relayTools: 21319,
  /** responses-messages.spec.ts: the openai and Anthropic clients through the relay. */
  relayProtocols: 21318,
  pwaStatic: 21320,
  /** relay-headless.spec.ts: a relay serving one build of the app, then another. */
  relayUpdate: 21322,
  mlcHub: 21321,
  /** The embeddings spec's relay. */
  relayEmbed: 21326,
  cliRelay: 21330,
  /** Where no relay ever listens, for "no relay here" errors. */
  cliNoRelay: 21339,
  gatewayUnit: 21340,
  gatewayUpstream: 21341,
  replicaFront: 21342,
  replicaRelay: 21343,
  appServerUnit: 21344,
  cloudGateway: 21345,
  cloudHub: 21346,
  cloudReplica: 21347,
  cloudRelay: 21348,
  /** Where no app server ever listens, for "the app did not answer" errors. */
  gatewayNoUpstream: 21349,
  bench: 21350,
  dockerImage: 21351,
  deployImage: 21352,
  globalInstall: 21353,
  profileHolder: 21354,
  profileSecond: 21355,
  /** cpu-kernels.spec.ts: the app with ggml's own K-quant kernels, beside the default one. */
  kernelsApp: 21356,
  /** hardening tests: hostile requests at a relay with the real router behind the real bridge. */
  relayHardening: 21357,
  /** The fuzz suite's relay (fast-check over every route through the relay and the router). */
  relayFuzz: 21358,
  /** hardening.spec.ts: session tokens, pairing links and CSP with real tabs. */
  relayTrust: 21359,
  /** The soak run's relay (`npm run soak`). */
  soakRelay: 21360,
  /** cloud replicas refusing calls that skip the gateway. */
  replicaGuard: 21361,
  /** headless-gpu.spec.ts: `lmtab serve --headless` saying which WebGPU adapter its engine got. */
  headlessGpu: 21362,
  /** interrupted-streams.spec.ts: streams of every surface cut mid-answer through the relay. */
  relayInterrupt: 21370,
  /** agents.spec.ts: Claude Code, Codex, opencode and the Agents SDK against the relay. */
  relayAgents: 21371,
  /** The recording proxy in front of the agents' relay (counts what each agent asked). */
  agentsProxy: 21372,
  /** openapi-conformance.spec.ts: the real engine's answers checked against the official specs. */
  relayConformance: 21373,
  /** rerank-clients.spec.ts: the Vercel AI SDK's rerank through the relay. */
  relayRerank: 21374,
  /** prompt-api.spec.ts: lmtab's LanguageModel from Node through the relay. */
  relayPromptApi: 21375,
  /** token-routes.spec.ts: llama-server's /tokenize, /detokenize, /apply-template through the relay. */
  relayTokens: 21376,
  /** audio-routes.spec.ts: OpenAI's audio routes and input_audio through the relay. */
  relayAudio: 21377,
  /** realtime.spec.ts: OpenAI's Realtime WebSocket through the relay. */
  relayRealtime: 21378,
  /** shared-weights.spec.ts: two models of one file made with `lmtab create` and My Models. */
  relaySharedWeights: 21379,
  /** webgpu-app.spec.ts: the app's engine on WebGPU (lavapipe) serving the page and Node clients. */
  relayWebgpu: 21380,
  /** firefox.spec.ts: the app in Firefox ESR on its CPU path, serving the page and the relay. */
  relayFirefox: 21381,
  /** firefox.spec.ts: the app in Firefox ESR on WebGPU (lavapipe). */
  relayFirefoxGpu: 21382,
  /** relay-metrics.test.ts: `GET /metrics` of a relay with the real router behind the bridge. */
  relayMetrics: 21383,
  /** engine-heartbeat.test.ts: a relay that sets a silent engine tab aside... */
  relayHeartbeat: 21384,
  /** ...and a stand-in relay that tells a real tab it rejoined. */
  relayHeartbeatTab: 21385,
  /** frozen-tab.spec.ts: a relay with an engine tab whose renderer is stopped (SIGSTOP). */
  relayFrozen: 21386,
} as const;

/** The table with `LMTAB_TEST_PORT_OFFSET` applied. */
export const testPorts = Object.fromEntries(
  Object.entries(basePorts).map(([name, port]) => [name, port + offset]),
) as { readonly [Name in keyof typeof basePorts]: number };
