import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { decodeBodyPiece, parseRelayFrame, type RelayToTabFrame } from '../../bridge/wire.js';
import { createRelay, type Relay } from '../create-relay.js';

// The relay's side of request-body flow control, against a scripted tab that grants credit by hand.
let relay: Relay | undefined;
const engineSecret = 'c'.repeat(64);

afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

/** A tab announcing `bodyWindow`; it counts body bytes per request and never grants on its own. */
async function connectTab(url: string, bodyWindow: number) {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/lmtab/engine`, [
    'lmtab-engine',
    `lmtab-secret.${engineSecret}`,
  ]);
  const frames: RelayToTabFrame[] = [];
  let received = 0;
  let credited = 0;
  let mostAhead = 0;
  let changed: () => void = () => undefined;
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) {
      received += decodeBodyPiece(data)!.chunk.byteLength;
      mostAhead = Math.max(mostAhead, received - credited);
    } else frames.push(parseRelayFrame(data.toString())!);
    changed();
  });
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'hello', capacity: 1, bodyWindow }));
  await expect.poll(() => relay!.stats().engines.length).toBe(1);
  return {
    frames,
    received: () => received,
    /** The most body bytes ever received beyond those credited. */
    mostAhead: () => mostAhead,
    /** Resolves once nothing arrived for `ms`. */
    quiet: (ms: number) =>
      new Promise<void>((resolve) => {
        let timer = setTimeout(resolve, ms);
        changed = () => {
          clearTimeout(timer);
          timer = setTimeout(resolve, ms);
        };
      }),
    credit(id: string, bytes: number) {
      credited += bytes;
      socket.send(JSON.stringify({ type: 'credit', id, bytes }));
    },
    send: (frame: object) => socket.send(JSON.stringify(frame)),
  };
}

describe('request bodies to a tab that grants credit', () => {
  it('never sends more than the window beyond the credit, and pauses the client meanwhile', async () => {
    relay = await createRelay({ appDir: '/nonexistent', port: 0, version: 'test', engineSecret });
    const window = 1024 * 1024;
    const tab = await connectTab(relay.url, window);
    const total = 32 * 1024 * 1024;
    let written = 0;
    const upload = httpRequest(`${relay.url}/api/blobs/sha256:${'a'.repeat(64)}`, {
      method: 'POST',
      headers: { 'Content-Length': String(total) },
    });
    const answered = new Promise<number>((resolve) =>
      upload.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      }),
    );
    const piece = Buffer.alloc(16 * 1024, 7);
    const writeAll = async () => {
      while (written < total) {
        written += piece.byteLength;
        if (!upload.write(piece)) await new Promise((resolve) => upload.once('drain', resolve));
      }
      upload.end();
    };
    void writeAll();
    await expect.poll(() => tab.frames.find((f) => f.type === 'request')).toBeDefined();
    const id = tab.frames.find((f) => f.type === 'request')!.id;

    await tab.quiet(300);
    expect(tab.received()).toBe(window);
    // The client is held back by TCP, not read into the relay: far less than the body is written.
    expect(written).toBeLessThan(total);

    // The tab grants what it has taken, as the real one does once its engine has read it.
    for (let credited = 0; tab.received() < total;) {
      const taken = tab.received() - credited;
      tab.credit(id, taken);
      credited += taken;
      await expect.poll(() => tab.received()).toBe(Math.min(total, credited + window));
    }
    expect(tab.mostAhead()).toBe(window);
    await expect.poll(() => tab.frames.some((f) => f.type === 'end' && f.id === id)).toBe(true);
    expect(tab.received()).toBe(total);
    tab.send({ type: 'head', id, status: 201, headers: [] });
    tab.send({ type: 'end', id });
    expect(await answered).toBe(201);
  });

  it('answers 413 from the Content-Length alone, naming --max-blob', async () => {
    relay = await createRelay({
      appDir: '/nonexistent',
      port: 0,
      version: 'test',
      maxBlobBytes: 1024,
    });
    const answer = await fetch(`${relay.url}/api/blobs/sha256:${'a'.repeat(64)}`, {
      method: 'POST',
      body: new Uint8Array(2048),
    });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      error:
        "Request body too large: the relay's limit is 1024 bytes (1 KiB), the Content-Length " +
        'header says 2048 bytes (2 KiB) (lmtab serve --max-blob sets the limit).',
    });
  });
});
