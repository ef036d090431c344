import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Options of {@link startStaticServer}. */
export interface StaticServerOptions {
  /** Folder served. */
  root: string;
  port: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

/** A running static server. */
export interface StaticServer {
  url: string;
  /** Serves another folder from now on, on the same origin (a new deployment). */
  setRoot(root: string): void;
  /** Paths requested so far, in order. */
  requests: string[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * A plain static file server, as on a static host that cannot set headers: no COOP/COEP, no
 * fallback to index.html, `no-cache` everywhere so a new deployment is seen at once.
 */
export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  let root = options.root;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    requests.push(pathname);
    const file = normalize(
      join(root, pathname === '/' ? 'index.html' : decodeURIComponent(pathname)),
    );
    void stat(file)
      .then((info) => {
        if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || !info.isFile()) {
          throw new Error('not a file');
        }
        res.writeHead(200, {
          'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
          'Content-Length': info.size,
          'Cache-Control': 'no-cache',
        });
        if (req.method === 'HEAD') res.end();
        else createReadStream(file).pipe(res);
      })
      .catch(() => {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end(`Not found: ${pathname}`);
      });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  return {
    url: `http://${host}:${options.port}`,
    requests,
    setRoot(next) {
      root = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
