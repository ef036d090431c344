import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorResponse } from '../../api/wire.js';
import { LmtabError } from '../../errors/index.js';
import { defaultLingerBytes, defaultLingerMs } from '../relay-defaults.js';

/** Options of {@link answerClientError}. */
export interface ClientErrorOptions {
  /** Headers added to the answer (cross-origin isolation). */
  headers?: Record<string, string>;
  /** Largest request head Node's parser reads, in bytes (`maxHeaderSize`); named in the 414/431. */
  maxHeaderBytes: number;
  /** Milliseconds to keep reading (and dropping) what the client still sends; default {@link defaultLingerMs}. */
  lingerMs?: number;
  /** Most bytes dropped that way before the connection is cut; default {@link defaultLingerBytes}. */
  lingerBytes?: number;
  /**
   * The exchange in progress on this connection, if any. When its request was whole, the bytes
   * the parser refused came after it (body bytes without framing), and its answer must go out
   * alone; when it was not, the client broke off mid-request, and the exchange is aborted.
   */
  inFlight?: { request: IncomingMessage; response: ServerResponse };
}

const reasons: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

const answered = new WeakSet<Duplex>();

/** The request line's method and path, read from the raw bytes of a request Node could not parse. */
function requestLine(raw: Buffer | undefined): { path: string; complete: boolean } {
  const text = raw?.subarray(0, 4096).toString('latin1') ?? '';
  const path = /^[A-Z]+ (\/[^\s?#]{0,512})/.exec(text)?.[1] ?? '/';
  return { path, complete: raw !== undefined && raw.includes('\r\n') };
}

/** The error answered for a parser failure: a head too large (414 or 431), a timeout, bad syntax. */
function describe(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, maxHeaderBytes: number) {
  const { complete } = requestLine(error.rawPacket);
  const limit = `${Math.round(maxHeaderBytes / 1024)} KiB`;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return complete
      ? new LmtabError(
          'headers_too_large',
          `Request headers too large: expected the request line and headers to fit in ${limit}, ` +
            'received more.',
        )
      : new LmtabError(
          'url_too_long',
          `Request URL too long: expected the request line (method, path and query) to fit in ` +
            `${limit}, received more. Send long input in a JSON body instead.`,
        );
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new LmtabError(
      'request_timeout',
      'Request timeout: expected the whole request head in time, received only part of it.',
    );
  }
  return new LmtabError(
    'invalid_request',
    `Malformed HTTP request: expected HTTP/1.1, received bytes the parser refused (${error.code ?? 'unknown'}: ${error.message}).`,
  );
}

/**
 * Answers a request Node's HTTP parser refused (the server's `clientError`) with a status and a
 * message in the protocol's shape of its path, then keeps reading what the client still sends for
 * a bounded while before closing. Node's own answer closes at once, so a client still sending
 * (a 100 KB URL) got `ECONNRESET` instead of the 414.
 */
export function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Duplex,
  options: ClientErrorOptions,
): void {
  // The parser stays broken and reports every later piece again: the first report answers.
  if (answered.has(socket)) return;
  answered.add(socket);
  socket.removeAllListeners('data');
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const { inFlight } = options;
  if (inFlight !== undefined && !inFlight.response.writableFinished) {
    // Cut off mid-request (an upload given up): closing aborts the exchange, as Node's own does.
    if (!inFlight.request.complete) return void socket.destroy();
    // A second answer would corrupt the first: that one finishes, then the connection closes.
    const { response } = inFlight;
    if (!response.headersSent) response.shouldKeepAlive = false;
    response.once('finish', () => socket.end());
    response.once('close', () => socket.destroy());
    socket.on('data', () => undefined);
    return;
  }
  const lmtabError = describe(error, options.maxHeaderBytes);
  const { path } = requestLine(error.rawPacket);
  void errorResponse(path, lmtabError)
    .arrayBuffer()
    .then((body) => {
      if (!socket.writable) return void socket.destroy();
      const head = [
        `HTTP/1.1 ${lmtabError.status} ${reasons[lmtabError.status] ?? 'Error'}`,
        'Connection: close',
        'Content-Type: application/json',
        `Content-Length: ${body.byteLength}`,
        ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.end(Buffer.from(body));
      let dropped = 0;
      const cut = setTimeout(() => socket.destroy(), options.lingerMs ?? defaultLingerMs);
      socket.on('data', (chunk: Buffer) => {
        dropped += chunk.byteLength;
        if (dropped > (options.lingerBytes ?? defaultLingerBytes)) socket.destroy();
      });
      socket.once('close', () => clearTimeout(cut));
      socket.once('end', () => socket.destroy());
      socket.resume();
    });
}
