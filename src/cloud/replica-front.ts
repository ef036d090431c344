import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorResponse } from '../api/wire.js';
import { isApiPath } from '../bridge/wire.js';
import { LmtabError } from '../errors/index.js';
import { CONTAINER_PORT } from './cloud-defaults.js';
import { checkGatewayToken } from './gateway/gateway-token.js';
import { proxyRequest, sendWebResponse } from './gateway/proxy-request.js';

/** What a replica is doing, as its readiness probe reports it. */
export interface ReplicaState {
  /** True once the model is downloaded and loaded. */
  ready: boolean;
  /** What it is doing now, or why it failed (`pulling hf.co/...`, `failed: ...`). */
  detail: string;
}

/** Options of {@link createReplicaFront}. */
export interface ReplicaFrontOptions {
  /** The replica's relay, e.g. `http://127.0.0.1:41234`. */
  upstream: string;
  /** Asked on every probe and request. */
  state: () => ReplicaState;
  /** Interface; default `0.0.0.0` (the pod's port). */
  host?: string;
  /** Port; default {@link CONTAINER_PORT}. */
  port?: number;
  /** Longest the relay may stay silent on one request, in seconds; default no limit. */
  timeoutSeconds?: number;
  /**
   * The token the gateway adds (`X-Lmtab-Gateway-Token`): `/v1` and `/api` requests without
   * it get 401, so that only the gateway (which checks API keys) reaches the app. Probes need none.
   * Default none: every caller is served (a replica nothing but its gateway can reach).
   */
  gatewayToken?: string;
}

/** A running replica front. */
export interface ReplicaFront {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * The port a replica serves on: `/health/ready` answers 200 only once the model is loaded (so
 * Knative sends no request to a replica still downloading), `/health` answers 200 while the
 * process lives, and `/v1` and `/api` go to the replica's relay (from the gateway only, when a
 * gateway token is set); until ready they get 503.
 */
export async function createReplicaFront(options: ReplicaFrontOptions): Promise<ReplicaFront> {
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    const { pathname } = new URL(url, 'http://replica');
    const state = options.state();
    if (pathname === '/health' || pathname === '/health/ready') {
      const status = pathname === '/health' || state.ready ? 200 : 503;
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({ status: state.ready ? 'ready' : 'starting', detail: state.detail }),
      );
      return;
    }
    const answer = (error: LmtabError) => sendWebResponse(errorResponse(pathname, error), response);
    if (!isApiPath(pathname)) {
      void answer(
        new LmtabError(
          'not_found',
          `Expected a path under /v1 or /api, got ${JSON.stringify(pathname)}.`,
        ),
      );
      return;
    }
    const notGateway =
      options.gatewayToken === undefined
        ? undefined
        : checkGatewayToken(request.headers, options.gatewayToken);
    if (notGateway !== undefined) {
      request.resume();
      void answer(notGateway);
      return;
    }
    if (!state.ready) {
      request.resume();
      void answer(
        new LmtabError('no_engine', `This replica is not ready yet: ${state.detail}.`, {
          retryAfter: 5,
        }),
      );
      return;
    }
    proxyRequest(request, response, {
      upstream: options.upstream,
      path: url,
      prefix: '',
      timeoutSeconds: options.timeoutSeconds,
      protocol: 'http',
    }).catch((error: unknown) =>
      answer(
        error instanceof LmtabError
          ? error
          : new LmtabError(
              'no_engine',
              `The replica's relay did not answer: ${(error as Error).message}.`,
              { retryAfter: 5 },
            ),
      ),
    );
  });
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? CONTAINER_PORT, host, () => done());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    server,
    close: () =>
      new Promise((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
