import { request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { LmtabError } from '../../errors/index.js';
import { forwardHeaders } from './gateway-routing.js';

// Keys travel in a header, never in cookies, so any origin may call (as OpenAI's API allows).
const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After, WWW-Authenticate, X-Lmtab-Error-Code',
};

/** Writes a web-standard Response (an error answer) to a Node response, CORS headers included. */
export async function sendWebResponse(response: Response, out: ServerResponse): Promise<void> {
  out.writeHead(response.status, { ...corsHeaders, ...Object.fromEntries(response.headers) });
  out.end(Buffer.from(await response.arrayBuffer()));
}

/** Where {@link proxyRequest} sends a request. */
export interface ProxyTarget {
  /** Base URL of the server that answers. */
  upstream: string;
  /** Path and query to ask it for. */
  path: string;
  /** The URL prefix the client used (`X-Forwarded-Prefix`); empty for none. */
  prefix: string;
  /** Longest the upstream may stay silent, in seconds; default no limit. */
  timeoutSeconds?: number;
  /** `X-Forwarded-Proto` when the client's own header is absent. */
  protocol: 'http' | 'https';
  /** Headers added to the forwarded request (the gateway's token for its replicas). */
  addHeaders?: Record<string, string>;
}

/**
 * Streams a request to the upstream and its answer back (SSE and NDJSON chunk by chunk),
 * cancelling the upstream request when the client goes away. Rejects, before anything was sent,
 * with the connection error (or an LmtabError on timeout) so the caller can answer it.
 */
export function proxyRequest(
  request: IncomingMessage,
  response: ServerResponse,
  target: ProxyTarget,
): Promise<void> {
  const upstream = new URL(target.upstream);
  const base = upstream.pathname.replace(/\/$/, '');
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const forwardedProto = request.headers['x-forwarded-proto'];
  return new Promise<void>((done, fail) => {
    const outgoing = send(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
        port: upstream.port,
        method: request.method,
        path: base + target.path,
        headers: {
          ...forwardHeaders(request.headers, {
            prefix: target.prefix,
            host: request.headers.host,
            protocol:
              forwardedProto === 'https' || forwardedProto === 'http'
                ? forwardedProto
                : target.protocol,
            clientAddress: request.socket.remoteAddress,
          }),
          ...target.addHeaders,
        },
        timeout: target.timeoutSeconds === undefined ? undefined : target.timeoutSeconds * 1000,
      },
      (answer) => {
        const headers: Record<string, string | string[] | undefined> = {
          ...corsHeaders,
          ...answer.headers,
        };
        delete headers.connection;
        delete headers['keep-alive'];
        delete headers['transfer-encoding'];
        response.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(response);
        answer.on('end', () => done());
        answer.on('error', () => {
          response.destroy();
          done();
        });
      },
    );
    outgoing.on('timeout', () => {
      outgoing.destroy(
        new LmtabError(
          'engine_timeout',
          `${target.prefix === '' ? 'The app' : `The app ${target.prefix}`} sent nothing for ${target.timeoutSeconds}s, its request timeout.`,
        ),
      );
    });
    outgoing.on('error', (error) => {
      if (response.headersSent) {
        response.destroy();
        done();
      } else fail(error);
    });
    // A client that goes away cancels the generation upstream.
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    request.pipe(outgoing);
  });
}
