// Request bodies in every browser. Chromium and Node give a `Request` a stream body both ways: a
// `ReadableStream` goes into the constructor (with `duplex: 'half'`) and comes out of `body`.
// Firefox (ESR 153) does neither: `Request.prototype.body` does not exist, and a stream handed to
// the constructor becomes the text "[object ReadableStream]". Its bytes are reached through
// `blob()`, and a stream that must stay a stream travels beside its `Request`.

/**
 * Whether `new Request(url, { body: stream })` keeps the stream: it asks for `duplex` and sets no
 * Content-Type, where a browser without stream bodies stringifies the stream as text.
 */
function detectStreamBodies(): boolean {
  let askedForDuplex = false;
  try {
    const request = new Request('http://lmtab.invalid/', {
      method: 'POST',
      body: new ReadableStream(),
      get duplex() {
        askedForDuplex = true;
        return 'half' as const;
      },
    } as RequestInit);
    return askedForDuplex && !request.headers.has('Content-Type');
  } catch {
    return false;
  }
}

/** Whether this runtime's `Request` takes and gives stream bodies (Chromium and Node; not Firefox). */
export const requestStreamBodies: boolean = detectStreamBodies();

/**
 * Bodies of requests built by {@link requestWithBody} where `Request` cannot hold a stream: kept
 * beside the request, so the stream still reaches its reader as it arrives.
 */
const carriedBodies = new WeakMap<Request, ReadableStream<Uint8Array>>();

/**
 * A request's body as a stream; null when it has none. A stream carried beside the request comes
 * first; where `Request.body` does not exist (Firefox), the bytes come from `blob()`, which reads
 * them whole: a size limit on the stream still refuses a large body, but only once it has arrived.
 */
export function requestBody(request: Request): ReadableStream<Uint8Array> | null {
  const carried = carriedBodies.get(request);
  if (carried !== undefined) return carried;
  const { body } = request as { body?: ReadableStream<Uint8Array> | null };
  if (body !== undefined) return body;
  if (request.method === 'GET' || request.method === 'HEAD') return null;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= (await request.blob()).stream().getReader();
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader?.cancel(reason),
  });
}

/**
 * A `Request` whose body may still be streaming: in it where the runtime takes stream bodies, else
 * (Firefox) carried beside it for {@link requestBody}, so nothing is read ahead of its reader.
 * Read such a request's body only through {@link requestBody}.
 */
export function requestWithBody(
  url: URL | string,
  init: Omit<RequestInit, 'body'> & { body: ReadableStream<Uint8Array> | null },
): Request {
  const { body, ...rest } = init;
  if (body === null) return new Request(url, rest);
  if (requestStreamBodies) {
    return new Request(url, { ...rest, body, duplex: 'half' } as RequestInit);
  }
  const request = new Request(url, rest);
  carriedBodies.set(request, body);
  return request;
}
