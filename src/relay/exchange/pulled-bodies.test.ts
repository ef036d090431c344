import { createHash } from 'node:crypto';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseRelayFrame, type RelayToTabFrame } from '../../bridge/wire.js';
import { createRelay, type Relay } from '../create-relay.js';
import { inlineBodyBytes } from './pulled-bodies.js';

// Large request bodies reach a tab that says `pullsBodies` by its own fetch from the relay, not as
// WebSocket frames; a scripted tab shows what the relay sends and answers.
let relay: Relay | undefined;
const engineSecret = 'd'.repeat(64);

afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

async function startRelay(): Promise<Relay> {
  relay = await createRelay({ appDir: '/nonexistent', port: 0, version: 'test', engineSecret });
  return relay;
}

/** A tab that says whether it pulls bodies, and keeps the frames and binary pieces it gets. */
async function connectTab(url: string, pullsBodies: boolean) {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/lmtab/engine`, [
    'lmtab-engine',
    `lmtab-secret.${engineSecret}`,
  ]);
  const frames: RelayToTabFrame[] = [];
  let pieces = 0;
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) pieces += 1;
    else frames.push(parseRelayFrame(data.toString())!);
  });
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'hello', capacity: 1, pullsBodies }));
  await expect.poll(() => relay!.stats().engines.length).toBe(1);
  return {
    frames,
    pieces: () => pieces,
    request: async () => {
      await expect.poll(() => frames.some((f) => f.type === 'request')).toBe(true);
      return frames.find((f) => f.type === 'request')!;
    },
    answer(id: string, status: number, text: string) {
      socket.send(
        JSON.stringify({ type: 'head', id, status, headers: [['content-type', 'text/plain']] }),
      );
      socket.send(Buffer.concat([Buffer.from([id.length]), Buffer.from(id), Buffer.from(text)]));
      socket.send(JSON.stringify({ type: 'end', id }));
    },
  };
}

/** A client POST whose body the test writes; resolves with the status and text it gets back. */
function post(url: string, headers: Record<string, string> = {}) {
  const client: ClientRequest = httpRequest(`${url}/api/blobs/sha256:${'a'.repeat(64)}`, {
    method: 'POST',
    headers,
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    client.on('response', (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString() }),
      );
    });
    client.on('error', reject);
  });
  return { client, answer };
}

/** GETs a body path as a tab would (or would not), reading all of it. */
async function fetchBody(url: string, path: string, secret: string | undefined, method = 'GET') {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: secret === undefined ? {} : { Authorization: `Bearer ${secret}` },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, bytes, length: response.headers.get('content-length') };
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('request bodies an engine tab fetches from the relay', () => {
  it('a large body goes by fetch with the secret, once: no frames carry it', async () => {
    const { url } = await startRelay();
    const tab = await connectTab(url, true);
    const body = Buffer.alloc(inlineBodyBytes * 3, 5);
    body.write('a body of three MiB');
    const { client, answer } = post(url, { 'Content-Length': String(body.byteLength) });
    client.end(body);
    const request = await tab.request();
    expect(request).toMatchObject({
      hasBody: true,
      bodyUrl: expect.stringMatching(/^\/lmtab\/engine\/body\/[\w-]{32}$/),
    });
    const path = (request as { bodyUrl: string }).bodyUrl;

    // Without the engine secret, with a wrong one, or with another method: refused, and still there.
    expect((await fetchBody(url, path, undefined)).status).toBe(401);
    expect((await fetchBody(url, path, 'e'.repeat(64))).status).toBe(401);
    expect((await fetchBody(url, path, engineSecret, 'DELETE')).status).toBe(405);
    const fetched = await fetchBody(url, path, engineSecret);
    expect(fetched.status).toBe(200);
    expect(fetched.length).toBe(String(body.byteLength));
    expect(sha(fetched.bytes)).toBe(sha(body));
    // One use only.
    expect((await fetchBody(url, path, engineSecret)).status).toBe(404);

    tab.answer((request as { id: string }).id, 200, 'stored');
    expect(await answer).toEqual({ status: 200, text: 'stored' });
    expect(tab.pieces()).toBe(0);
    expect(tab.frames.filter((f) => f.type === 'end')).toEqual([]);
  });

  it('a body of unknown length goes by fetch too; a small declared one rides with the request', async () => {
    const { url } = await startRelay();
    const tab = await connectTab(url, true);
    const chunked = post(url, { 'Transfer-Encoding': 'chunked' });
    chunked.client.write('{"model":');
    chunked.client.end('"x"}');
    const request = await tab.request();
    const fetched = await fetchBody(url, (request as { bodyUrl: string }).bodyUrl, engineSecret);
    expect(fetched.bytes.toString()).toBe('{"model":"x"}');
    tab.answer(request.id, 200, 'ok');
    expect((await chunked.answer).status).toBe(200);

    tab.frames.length = 0;
    const small = post(url, { 'Content-Length': '13' });
    small.client.end('{"model":"y"}');
    const inline = await tab.request();
    expect(inline).toMatchObject({ hasBody: true });
    expect(inline).not.toHaveProperty('bodyUrl');
    await expect.poll(() => tab.pieces()).toBe(1);
    tab.answer(inline.id, 200, 'ok');
    expect((await small.answer).status).toBe(200);
  });

  it('a tab that does not say pullsBodies gets every body as frames', async () => {
    const { url } = await startRelay();
    const tab = await connectTab(url, false);
    const { client, answer } = post(url, { 'Content-Length': String(inlineBodyBytes * 2) });
    client.end(Buffer.alloc(inlineBodyBytes * 2, 1));
    const request = await tab.request();
    expect(request).not.toHaveProperty('bodyUrl');
    await expect.poll(() => tab.frames.some((f) => f.type === 'end')).toBe(true);
    expect(tab.pieces()).toBeGreaterThan(1);
    tab.answer(request.id, 200, 'ok');
    expect((await answer).status).toBe(200);
  });

  it('a client that hangs up mid-body cuts the tab’s fetch and aborts the request', async () => {
    const { url } = await startRelay();
    const tab = await connectTab(url, true);
    const { client, answer } = post(url, { 'Content-Length': String(inlineBodyBytes * 8) });
    answer.catch(() => undefined);
    client.write(Buffer.alloc(inlineBodyBytes, 2));
    const request = await tab.request();
    const response = await fetch(`${url}${(request as { bodyUrl: string }).bodyUrl}`, {
      headers: { Authorization: `Bearer ${engineSecret}` },
    });
    const reader = response.body!.getReader();
    let read = 0;
    while (read < inlineBodyBytes) read += (await reader.read()).value!.byteLength;
    client.destroy();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'ended';
      })(),
    ).rejects.toThrow();
    await expect.poll(() => tab.frames.some((f) => f.type === 'abort')).toBe(true);
  });
});
