import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { contentSecurityPolicy } from '../../bridge/wire.js';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/**
 * Headers that make the app cross-origin isolated, so WebAssembly may use threads
 * (SharedArrayBuffer); sent on every answer, API answers included.
 */
export const isolationHeaders: Record<string, string> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Resolves a URL path inside `root`, refusing anything that climbs out of it. */
function resolveInside(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const full = normalize(join(root, decoded));
  return full === root || full.startsWith(root.endsWith(sep) ? root : root + sep)
    ? full
    : undefined;
}

/**
 * Serves the built app from `root`: hashed assets cached for good, the shell and the service
 * worker revalidated on every visit, unknown page paths answered with the shell.
 */
export async function serveStatic(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<boolean> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  let file = resolveInside(root, pathname === '/' ? '/index.html' : pathname);
  let info = file ? await stat(file).catch(() => undefined) : undefined;
  if (!info?.isFile() && !extname(pathname)) {
    file = join(root, 'index.html');
    info = await stat(file).catch(() => undefined);
  }
  if (!file || !info?.isFile()) return false;
  const immutable = pathname.startsWith('/assets/');
  response.writeHead(200, {
    ...isolationHeaders,
    // Documents and workers take their policy from their own answer: every file gets it.
    'Content-Security-Policy': contentSecurityPolicy,
    'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (request.method === 'HEAD') {
    response.end();
    return true;
  }
  await new Promise<void>((resolve, reject) => {
    createReadStream(file).on('error', reject).on('end', resolve).pipe(response);
  });
  return true;
}
