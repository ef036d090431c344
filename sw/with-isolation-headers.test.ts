import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../src/bridge/wire.js';
import { withIsolationHeaders } from './with-isolation-headers.js';

describe('withIsolationHeaders', () => {
  it('copies a response with COOP, COEP, CORP and the CSP set, keeping status, headers and body', async () => {
    const original = new Response('<!doctype html>', {
      status: 203,
      statusText: 'Cached',
      headers: { 'Content-Type': 'text/html', 'Cross-Origin-Opener-Policy': 'unsafe-none' },
    });
    const copy = withIsolationHeaders(original);
    expect(copy.status).toBe(203);
    expect(copy.statusText).toBe('Cached');
    expect(Object.fromEntries(copy.headers)).toEqual({
      'content-type': 'text/html',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cross-origin-resource-policy': 'same-origin',
      'content-security-policy': contentSecurityPolicy,
    });
    expect(contentSecurityPolicy).toContain("script-src 'self' blob: 'wasm-unsafe-eval'");
    expect(await copy.text()).toBe('<!doctype html>');
  });

  it('keeps a body-less response body-less', () => {
    const copy = withIsolationHeaders(new Response(null, { status: 304 }));
    expect(copy.status).toBe(304);
    expect(copy.body).toBeNull();
  });

  it('returns an opaque response unchanged: it cannot be copied', () => {
    const opaque = { type: 'opaque', status: 0 } as Response;
    expect(withIsolationHeaders(opaque)).toBe(opaque);
  });
});
