import { createServer, request as httpRequest } from 'node:http';

/** One request that went through the proxy to the relay. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  status: number;
  /** The request's JSON body, when it had one. */
  body: unknown;
}

/** A proxy in front of the relay that records what clients asked, and refuses everything else. */
export interface RecordingProxy {
  url: string;
  /** Requests forwarded to the relay, in the order their answers began. */
  requests: RecordedRequest[];
  /** Hosts something tried to reach through the proxy (`HTTPS_PROXY`): refused, and named here. */
  outbound: string[];
  /** Forgets what was recorded so far. */
  clear(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1:`port` that forwards requests for its own origin to `target` and
 * records them. Set as `HTTP_PROXY`/`HTTPS_PROXY` too, it catches a program's calls to other
 * hosts (CONNECT or absolute URLs): they are refused with 403 and listed in `outbound`.
 */
export async function startRecordingProxy(port: number, target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const outbound: string[] = [];
  const server = createServer((req, res) => {
    // A client that leaves early resets its socket: nothing to report.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const url = req.url ?? '/';
    if (!url.startsWith('/')) {
      outbound.push(new URL(url).host);
      res.writeHead(403).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = httpRequest(
        new URL(url, target),
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (answer) => {
          // Recorded as the answer starts: a client may leave once it has read what it needs.
          requests.push({
            method: req.method ?? 'GET',
            path: url,
            status: answer.statusCode ?? 502,
            body: parseJson(body),
          });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      // A client that leaves stops the relay's work too.
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  server.on('connect', (req, socket) => {
    socket.on('error', () => undefined);
    outbound.push(req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    outbound,
    clear() {
      requests.length = 0;
      outbound.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return body.toString('utf8');
  }
}
