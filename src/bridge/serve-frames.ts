import { toLmtabError } from '../errors/index.js';
import { requestBody, requestWithBody } from '../streams/index.js';
import type { RequestFrame, ResponseFrame } from './frames.js';

/** A web-standard request handler: the API router in the engine host. */
export type FrameHandler = (
  request: Request,
  options: { signal: AbortSignal },
) => Promise<Response>;

/**
 * Rebuilds a `Request` from a frame, its body still streaming (in Firefox beside the request: read
 * it with `requestBody`); `origin` makes the URL absolute.
 */
export function frameToRequest(frame: RequestFrame, origin: string, signal?: AbortSignal): Request {
  const hasBody = frame.body !== null && frame.method !== 'GET' && frame.method !== 'HEAD';
  return requestWithBody(new URL(frame.url, origin), {
    method: frame.method,
    headers: frame.headers,
    body: hasBody ? frame.body : null,
    signal,
  });
}

/** Turns a `Request` into a frame; its body stays a stream, to be transferred with the frame. */
export function requestToFrame(request: Request, id: string): RequestFrame {
  const url = new URL(request.url);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  return {
    type: 'request',
    id,
    method: request.method,
    url: url.pathname + url.search,
    headers: [...request.headers],
    body: hasBody ? requestBody(request) : null,
  };
}

/**
 * Answers one request frame with `handler`, sending the response back as frames. Body chunks are
 * sent as they come, so a streamed answer streams through every transport.
 */
export async function serveFrame(
  frame: RequestFrame,
  handler: FrameHandler,
  send: (frame: ResponseFrame, transfer?: Transferable[]) => void,
  options: { origin: string; signal: AbortSignal },
): Promise<void> {
  const { id } = frame;
  let headSent = false;
  try {
    const response = await handler(frameToRequest(frame, options.origin), {
      signal: options.signal,
    });
    send({ type: 'head', id, status: response.status, headers: [...response.headers] });
    headSent = true;
    if (response.body) {
      const reader = response.body.getReader();
      const stop = () => void reader.cancel().catch(() => undefined);
      options.signal.addEventListener('abort', stop, { once: true });
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          send({ type: 'data', id, chunk: value });
        }
      } finally {
        options.signal.removeEventListener('abort', stop);
      }
    }
    send({ type: 'end', id });
  } catch (error) {
    const lmtab = toLmtabError(error);
    if (!headSent || !options.signal.aborted) {
      send({ type: 'error', id, code: lmtab.code, message: lmtab.message });
    }
  }
}
