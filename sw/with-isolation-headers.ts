import { contentSecurityPolicy } from '../src/bridge/wire.js';

/**
 * Headers that make a document cross-origin isolated (so WebAssembly may use threads), plus the
 * resource policy a same-origin subresource needs under `require-corp`.
 */
export const isolationHeaders: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * A copy of a same-origin response with the isolation headers and the app's Content-Security-Policy
 * set, for static hosts that cannot send them. Opaque responses (no-cors, cross-origin) cannot be copied and come back unchanged.
 */
export function withIsolationHeaders(response: Response): Response {
  if (response.type === 'opaque' || response.type === 'opaqueredirect' || response.status === 0) {
    return response;
  }
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(isolationHeaders)) headers.set(name, value);
  // Static hosts send no policy either: the app's goes with the isolation headers.
  headers.set('Content-Security-Policy', contentSecurityPolicy);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
