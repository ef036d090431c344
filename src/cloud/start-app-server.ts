import type { AppDefinition } from './define-app.js';
import { pullAndLoad } from './pull-and-load.js';
import type { PullAndLoadOptions } from './pull-and-load.js';
import { createReplicaFront } from './replica-front.js';
import type { ReplicaFront, ReplicaState } from './replica-front.js';

/** A relay with an engine behind it, as {@link startAppServer} needs one. */
export interface RunningRelay {
  /** e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
}

/** Options of {@link startAppServer}. */
export interface AppServerOptions {
  definition: AppDefinition;
  /** Starts the app's relay (with its headless engine); injected so tests need no browser. */
  startRelay: () => Promise<RunningRelay>;
  /** Interface of the serving port; default `0.0.0.0`. */
  host?: string;
  /** The serving port; default 8080. */
  port?: number;
  /** Told about progress (`pulling ... 40%`, `serving ...`); default nothing. */
  log?: (line: string) => void;
  /** Pulls and loads the model; default {@link pullAndLoad}. */
  prepare?: (options: PullAndLoadOptions) => Promise<string>;
  /** The token the gateway adds; requests without it are refused (see `createReplicaFront`). */
  gatewayToken?: string;
}

/** One app serving: its front port, its relay, and the model once ready. */
export interface AppServer {
  front: ReplicaFront;
  relay: RunningRelay;
  /** Resolves with the stored model name once pulled and loaded; rejects when that fails. */
  ready: Promise<string>;
  state(): ReplicaState;
  close(): Promise<void>;
}

/**
 * Serves one app as a replica does: starts its relay, opens the serving port at once (so probes
 * see it starting), pulls and loads the app's model, and only then reports ready and lets
 * requests through. Used by `lmtab cloud replica` in the cluster and `lmtab cloud run` here.
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const { definition } = options;
  const log = options.log ?? (() => undefined);
  const relay = await options.startRelay();
  let state: ReplicaState = { ready: false, detail: `starting ${definition.model}` };
  let front: ReplicaFront;
  try {
    front = await createReplicaFront({
      upstream: relay.url,
      state: () => state,
      host: options.host,
      port: options.port,
      timeoutSeconds: definition.requestTimeoutSeconds,
      gatewayToken: options.gatewayToken,
    });
  } catch (error) {
    await relay.close();
    throw error;
  }
  const stop = new AbortController();
  const ready = (options.prepare ?? pullAndLoad)({
    relayUrl: relay.url,
    model: definition.model,
    contextLength: definition.contextLength,
    signal: stop.signal,
    onStatus: (line) => {
      state = { ready: false, detail: line };
      log(line);
    },
  }).then(
    (name) => {
      state = { ready: true, detail: `serving ${name}` };
      log(state.detail);
      return name;
    },
    (error: unknown) => {
      state = { ready: false, detail: `failed: ${(error as Error).message}` };
      throw error;
    },
  );
  // The caller handles failure through `ready`; this keeps an unobserved rejection quiet.
  ready.catch(() => undefined);
  return {
    front,
    relay,
    ready,
    state: () => state,
    async close() {
      stop.abort();
      await front.close();
      await relay.close();
    },
  };
}
