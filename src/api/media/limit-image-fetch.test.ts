import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { decodeImage } from './decode-image.js';
import { limitImageFetch } from './limit-image-fetch.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** A local server that accepts connections and answers as told (or never). */
async function serve(answer: (response: ServerResponse) => void) {
  server = createServer((_request, response) => answer(response));
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/cat.png`;
}

async function failure(promise: Promise<unknown>): Promise<LmtabError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof LmtabError) return error;
  throw new Error(`expected an LmtabError, got ${String(error)}`);
}

describe('image fetches have time limits', () => {
  it('a server that accepts and never answers fails after the connect limit with a 400', async () => {
    const url = await serve(() => undefined);
    const started = Date.now();
    const error = await failure(
      decodeImage(url, {
        param: 'messages[0].content[1]',
        maxBytes: 1024,
        fetch: limitImageFetch(globalThis.fetch, { connectMs: 300, totalMs: 5000 }),
      }),
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.status).toBe(400);
    expect(error.param).toBe('messages[0].content[1]');
    expect(error.message).toContain('sent no answer within 0.3 s (the connect limit)');
  });

  it('a server that sends headers and then trickles forever fails after the total limit', async () => {
    const url = await serve((response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      response.write(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    });
    const error = await failure(
      decodeImage(url, {
        param: 'images[0]',
        maxBytes: 1024,
        fetch: limitImageFetch(globalThis.fetch, { connectMs: 2000, totalMs: 400 }),
      }),
    );
    expect(error.message).toContain('did not arrive within 0.4 s (the total limit)');
  });

  it('an image within the limits arrives', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const url = await serve((response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      response.end(png);
    });
    const image = await decodeImage(url, {
      param: 'images[0]',
      maxBytes: 1024,
      fetch: limitImageFetch(globalThis.fetch, { connectMs: 2000, totalMs: 2000 }),
    });
    expect(image.mimeType).toBe('image/png');
  });
});
