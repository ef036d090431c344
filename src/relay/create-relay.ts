import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { errorResponse } from '../api/wire-errors.js';
import { isApiPath } from '../bridge/frames.js';
import { isolationHeaders, serveStatic } from './static-files.js';

/** Options of {@link createRelay}. */
export interface RelayOptions {
  /** Folder of the built app (`dist/`). */
  appDir: string;
  /** Interface to listen on; default `127.0.0.1` (use `0.0.0.0` for the LAN). */
  host?: string;
  /** Port; default 1234 (11434 serves Ollama clients). */
  port?: number;
  /** lmtab's version, reported by `/health`. */
  version: string;
}

/** A running relay. */
export interface Relay {
  /** The address it listens on, e.g. `http://127.0.0.1:1234`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Writes a web-standard Response to a Node response. */
async function sendResponse(response: Response, out: ServerResponse): Promise<void> {
  out.writeHead(response.status, { ...isolationHeaders, ...Object.fromEntries(response.headers) });
  out.end(Buffer.from(await response.arrayBuffer()));
}

/**
 * The relay: serves the built app with cross-origin isolation headers and answers `/health`.
 * API requests are answered by an engine tab; with none connected they get 503 `no_engine`.
 */
export async function createRelay(options: RelayOptions): Promise<Relay> {
  const appDir = resolve(options.appDir);
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    if (pathname === '/health') {
      response.writeHead(200, { ...isolationHeaders, 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', version: options.version, engines: 0 }));
      return;
    }
    if (isApiPath(pathname)) {
      const address = `http://${request.headers.host ?? 'localhost:1234'}/`;
      await sendResponse(
        errorResponse(
          pathname,
          'no_engine',
          `No engine tab is connected to this relay: open ${address} in a browser and keep the tab open.`,
        ),
        response,
      );
      return;
    }
    if (await serveStatic(appDir, request, response)) return;
    response.writeHead(404, { ...isolationHeaders, 'Content-Type': 'text/plain' });
    response.end(`Not found: ${pathname}\n`);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end(`Relay error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 1234, host, () => done());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    server,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
