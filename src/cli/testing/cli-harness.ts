import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { routerHarness } from '../../api/testing/router-harness.js';
import type { RouterHarness, RouterHarnessOptions } from '../../api/testing/router-harness.js';
import type { CliContext, CliOutput } from '../cli-context.js';
import { createRelayClient } from '../relay-client.js';

/** A captured output stream. */
export interface CapturedOutput extends CliOutput {
  text: string;
}

/** The API router (engine double, memory store) behind a real HTTP server, and a CLI context for it. */
export interface CliHarness extends RouterHarness {
  url: URL;
  /** A fresh context: captured stdout/stderr, stdin fed from `input` (a pipe, not a terminal). */
  context(options?: { input?: string; cwd?: string }): CliContext & {
    stdout: CapturedOutput;
    stderr: CapturedOutput;
  };
  close(): Promise<void>;
}

/** Starts a {@link CliHarness} on a free local port. */
export async function cliHarness(options: RouterHarnessOptions = {}): Promise<CliHarness> {
  const harness = routerHarness(options);
  const server = createServer((req, res) => {
    void (async () => {
      if (req.url === '/health') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok', version: '0.1.0', engines: 1 }));
        return;
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(`http://lmtab.test${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: Object.entries(req.headers).flatMap(([k, v]) =>
          v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
        ),
        ...(hasBody
          ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' }
          : {}),
      } as RequestInit);
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const response = await harness.router.handle(request, { signal: controller.signal });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body !== null) {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
      }
      res.end();
    })();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const client = createRelayClient({ baseUrl: url });
  const capture = (): CapturedOutput => {
    const out: CapturedOutput = {
      text: '',
      write: (t: string) => (out.text += t),
    };
    return out;
  };
  return {
    ...harness,
    url,
    context(contextOptions = {}) {
      const stdin = new PassThrough();
      stdin.end(contextOptions.input ?? '');
      return {
        connect: () => Promise.resolve(client),
        stdin,
        stdout: capture(),
        stderr: capture(),
        cwd: contextOptions.cwd ?? process.cwd(),
        home: '/nonexistent-home',
        clock: () => Date.UTC(2026, 10, 21, 12, 2, 0),
      };
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
