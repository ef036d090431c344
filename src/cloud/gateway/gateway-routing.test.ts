import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { formatAccessLog, forwardHeaders, matchGatewayRoute } from './gateway-routing.js';
import type { GatewayRoute } from './gateway-routing.js';

const routes: GatewayRoute[] = [
  {
    org: 'acme',
    app: 'chat',
    auth: 'private',
    upstream: 'http://acme-chat.lmtab.svc.cluster.local',
  },
  { org: 'acme', app: 'open', auth: 'public', upstream: 'http://127.0.0.1:9' },
];

function notFound(url: string): string {
  try {
    matchGatewayRoute(url, routes);
  } catch (error) {
    expect(error).toBeInstanceOf(LmtabError);
    expect((error as LmtabError).code).toBe('not_found');
    return (error as LmtabError).message;
  }
  throw new Error('expected not_found');
}

describe('matchGatewayRoute', () => {
  it('strips /ORG/APP and keeps the query', () => {
    expect(matchGatewayRoute('/acme/chat/v1/chat/completions', routes)).toEqual({
      route: routes[0],
      prefix: '/acme/chat',
      path: '/v1/chat/completions',
      pathname: '/v1/chat/completions',
    });
    expect(matchGatewayRoute('/acme/open/api/tags?x=1', routes)).toMatchObject({
      route: routes[1],
      path: '/api/tags?x=1',
      pathname: '/api/tags',
    });
    expect(matchGatewayRoute('/acme/chat/v1', routes).path).toBe('/v1');
  });

  it('resolves dot segments before matching, so auth follows the app really reached', () => {
    expect(matchGatewayRoute('/acme/open/v1/../../chat/v1/models', routes).route.app).toBe('chat');
  });

  it('refuses unknown apps and paths outside /v1 and /api', () => {
    expect(notFound('/acme/nope/v1/models')).toBe(
      'Expected a path /ORG/APP/v1/... naming a deployed app, got "/acme/nope/v1/models": no app is deployed at /acme/nope.',
    );
    expect(notFound('/v1/models')).toMatch(/no app is deployed at \/v1\/models/);
    expect(notFound('/acme/chat')).toBe(
      'Expected a path under /acme/chat/v1 or /acme/chat/api, got "/acme/chat".',
    );
    expect(notFound('/acme/chat/index.html')).toMatch(/got "\/acme\/chat\/index.html"/);
  });
});

describe('forwardHeaders', () => {
  it('drops the key, Host and hop-by-hop headers and adds X-Forwarded-*', () => {
    expect(
      forwardHeaders(
        {
          host: 'gw.example',
          authorization: 'Key lmtab_secret',
          connection: 'keep-alive, x-custom-hop',
          'keep-alive': 'timeout=5',
          'x-custom-hop': '1',
          'transfer-encoding': 'chunked',
          'x-forwarded-for': '6.6.6.6',
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        { prefix: '/acme/chat', host: 'gw.example', protocol: 'https', clientAddress: '10.0.0.7' },
      ),
    ).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-forwarded-prefix': '/acme/chat',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'gw.example',
      'x-forwarded-for': '10.0.0.7',
    });
  });
});

describe('formatAccessLog', () => {
  it('logs the path without its query and the key id, never a key', () => {
    expect(
      formatAccessLog({
        time: new Date('2026-01-01T00:00:00Z'),
        method: 'POST',
        url: '/acme/chat/v1/chat/completions?api_key=lmtab_secret',
        status: 200,
        durationMs: 12.4,
        keyId: 'key_0123456789ab',
      }),
    ).toBe(
      '2026-01-01T00:00:00.000Z POST /acme/chat/v1/chat/completions 200 12ms key=key_0123456789ab',
    );
  });
});
