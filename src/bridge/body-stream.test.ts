import { describe, expect, it } from 'vitest';
import { createFetchedBody, createInboundBody } from './body-stream.js';

const piece = (size: number, fill = 1) => new Uint8Array(size).fill(fill);

describe('createInboundBody', () => {
  it('grants pieces back only as the reader takes them, batched by a quarter window', async () => {
    const grants: number[] = [];
    const body = createInboundBody({
      window: 400,
      readBytes: 1,
      grant: (bytes) => grants.push(bytes),
    });
    for (let i = 0; i < 4; i++) expect(body.push(piece(100, i))).toBe(true);
    // A sender that ignores the window is caught.
    expect(body.push(piece(1))).toBe(false);
    expect(grants).toEqual([]);
    const reader = body.stream.getReader();
    expect((await reader.read()).value?.[0]).toBe(0);
    expect(grants).toEqual([100]);
    expect(body.push(piece(100, 4))).toBe(true);
    for (const expected of [1, 2, 3, 4]) expect((await reader.read()).value?.[0]).toBe(expected);
    expect(grants).toEqual([100, 100, 100, 100, 100]);
    body.end();
    expect((await reader.read()).done).toBe(true);
  });

  it('waits for pieces, and holds nothing the reader has not asked for', async () => {
    const grants: number[] = [];
    const body = createInboundBody({
      window: 1000,
      readBytes: 40,
      grant: (bytes) => grants.push(bytes),
    });
    const reader = body.stream.getReader();
    const pending = reader.read();
    body.push(piece(10));
    expect((await pending).value?.byteLength).toBe(10);
    body.push(piece(20, 2));
    body.push(piece(15, 3));
    body.push(piece(30, 4));
    body.end();
    // Queued pieces are joined up to readBytes, in order.
    const joined = (await reader.read()).value;
    expect([joined?.byteLength, joined?.[0], joined?.[34]]).toEqual([35, 2, 3]);
    expect((await reader.read()).value?.byteLength).toBe(30);
    expect((await reader.read()).done).toBe(true);
    expect(grants.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(75);
  });

  it('errors the reader when the body fails before its end', async () => {
    const body = createInboundBody({ window: 1000, grant: () => undefined });
    body.push(piece(10));
    const reader = body.stream.getReader();
    const reason = new Error('the client went away');
    body.fail(reason);
    await expect(reader.read()).rejects.toBe(reason);
  });
});

describe('createFetchedBody', () => {
  const url = new URL('http://relay.test/lmtab/engine/body/token');

  /** A fetch answering `pieces` as a stream, keeping what it was asked. */
  function fakeFetch(pieces: Uint8Array[], status = 200) {
    const asked: { url: string; authorization: string | null }[] = [];
    const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
      asked.push({
        url: String(input),
        authorization: new Headers(init?.headers).get('authorization'),
      });
      if (status !== 200) return new Response('gone', { status });
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of pieces) controller.enqueue(part);
          controller.close();
        },
      });
      return new Response(stream, { status });
    }) as typeof fetch;
    return { asked, fetcher };
  }

  it('fetches only when first read, with the secret, joining pieces up to readBytes', async () => {
    const { asked, fetcher } = fakeFetch([piece(3, 1), piece(3, 2), piece(3, 3)]);
    const seen: number[] = [];
    let ended = false;
    const body = createFetchedBody({
      url,
      secret: 'S',
      fetch: fetcher,
      readBytes: 6,
      onPiece: (chunk) => seen.push(chunk.byteLength),
      onEnd: () => (ended = true),
    });
    expect(asked).toEqual([]);
    const reader = body.stream.getReader();
    expect(Array.from((await reader.read()).value!)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(asked).toEqual([{ url: url.href, authorization: 'Bearer S' }]);
    expect(Array.from((await reader.read()).value!)).toEqual([3, 3, 3]);
    expect((await reader.read()).done).toBe(true);
    expect(seen).toEqual([3, 3, 3]);
    expect(ended).toBe(true);
    // Pieces on the socket for a fetched body break the protocol.
    expect(body.push(piece(1))).toBe(false);
  });

  it('a refusal by the relay, or a failure, errors the stream', async () => {
    const refused = createFetchedBody({ url, secret: 'S', fetch: fakeFetch([], 404).fetcher });
    await expect(refused.stream.getReader().read()).rejects.toThrow(
      'The relay did not give the request body (404): gone',
    );
    const failed = createFetchedBody({ url, secret: 'S', fetch: fakeFetch([piece(1)]).fetcher });
    failed.fail(new Error('the client went away'));
    await expect(failed.stream.getReader().read()).rejects.toThrow('the client went away');
  });
});
