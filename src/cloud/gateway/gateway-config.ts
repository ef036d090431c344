import { readFile, stat } from 'node:fs/promises';
import { LmtabError } from '../../errors/index.js';
import { APP_AUTH_MODES } from './authorize-request.js';
import type { GatewayRoute } from './gateway-routing.js';
import { assertDnsLabel } from '../resource-names.js';
import { parseJsonFile } from '../parse-json-file.js';

/** The gateway's configuration file (`gateway.json`): the apps it fronts. */
export interface GatewayConfig {
  routes: GatewayRoute[];
}

/** Parses and checks a gateway config (`gateway.json`); throws `invalid_request` naming the file. */
export function parseGatewayConfig(text: string, file = 'gateway.json'): GatewayConfig {
  const value = parseJsonFile(text, `the gateway config ${file}`);
  const routes = (value as { routes?: unknown } | null)?.routes;
  if (!Array.isArray(routes)) {
    throw new LmtabError(
      'invalid_request',
      `Expected {"routes": [...]} in the gateway config ${file}.`,
    );
  }
  for (const route of routes as Partial<GatewayRoute>[]) {
    const valid =
      typeof route?.org === 'string' &&
      typeof route.app === 'string' &&
      APP_AUTH_MODES.includes(route.auth as GatewayRoute['auth']) &&
      typeof route.upstream === 'string' &&
      URL.canParse(route.upstream);
    if (!valid) {
      throw new LmtabError(
        'invalid_request',
        `Expected each route in ${file} to have org, app, auth ("private" or "public") and an upstream URL, got ${JSON.stringify(route)}.`,
      );
    }
    assertDnsLabel(route.org as string, 'an org');
    assertDnsLabel(route.app as string, 'an app name');
  }
  return { routes: routes as GatewayRoute[] };
}

/**
 * Reads the gateway config again whenever the file changes (Kubernetes updates a mounted
 * ConfigMap in place); a config that stops parsing keeps the last good routes and is reported.
 */
export function createGatewayConfigReader(
  file: string,
  onError?: (error: Error) => void,
): () => Promise<readonly GatewayRoute[]> {
  let cached: { mtimeMs: number; size: number; routes: readonly GatewayRoute[] } | undefined;
  return async () => {
    const info = await stat(file).catch(() => undefined);
    if (info === undefined) {
      if (cached === undefined)
        throw new LmtabError(
          'invalid_request',
          `Expected a gateway config at ${file}, got no such file.`,
        );
      return cached.routes;
    }
    if (cached?.mtimeMs !== info.mtimeMs || cached.size !== info.size) {
      try {
        const routes = parseGatewayConfig(await readFile(file, 'utf8'), file).routes;
        cached = { mtimeMs: info.mtimeMs, size: info.size, routes };
      } catch (error) {
        if (cached === undefined) throw error;
        onError?.(error as Error);
        cached = { ...cached, mtimeMs: info.mtimeMs, size: info.size };
      }
    }
    return cached.routes;
  };
}
