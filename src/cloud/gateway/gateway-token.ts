import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LmtabError } from '../../errors/index.js';

/**
 * The header the gateway adds to every request it forwards to an app, with the token replicas
 * check: a pod that reaches a replica without the gateway (through the cluster-local ingress, or
 * its pod address) has no token and is refused. Clients' own values never pass the gateway.
 */
export const GATEWAY_TOKEN_HEADER = 'x-lmtab-gateway-token';

/** The variable that gives the gateway and the replicas the token (from one Kubernetes Secret). */
export const GATEWAY_TOKEN_ENV = 'LMTAB_GATEWAY_TOKEN';

/** Name of the Secret that holds the token, and its key. */
export const GATEWAY_TOKEN_SECRET = { name: 'lmtab-gateway-token', key: 'token' } as const;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * A short fingerprint of the token for pod annotations: a new token changes the gateway's and
 * the apps' pod templates, so both roll out with it instead of keeping the old one in their
 * environment.
 */
export function tokenFingerprint(token: string): string {
  return digest(token).toString('hex').slice(0, 16);
}

/**
 * Checks that a request came from the gateway: undefined when it carries the token, else the 401
 * to answer (saying where the app is reached instead).
 */
export function checkGatewayToken(
  headers: IncomingHttpHeaders,
  token: string,
): LmtabError | undefined {
  const given = headers[GATEWAY_TOKEN_HEADER];
  if (typeof given === 'string' && timingSafeEqual(digest(given), digest(token))) return undefined;
  return new LmtabError(
    'unauthorized',
    'This app replica answers only its lmtab gateway: expected the request through the ' +
      'gateway’s public URL (https://HOST/ORG/APP/v1, with `Authorization: Key <API_KEY>` for a ' +
      `private app), received one without the gateway's ${GATEWAY_TOKEN_HEADER} header` +
      `${given === undefined ? '' : ' value'}.`,
  );
}

/** The container variable that gives the gateway, or a replica, the token from its Secret. */
export function gatewayTokenEnv(): Record<string, unknown> {
  return {
    name: GATEWAY_TOKEN_ENV,
    valueFrom: {
      secretKeyRef: { name: GATEWAY_TOKEN_SECRET.name, key: GATEWAY_TOKEN_SECRET.key },
    },
  };
}
