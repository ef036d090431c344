import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { testPorts } from '../../../tests/support/test-ports.js';
import { connectRelay, type RelayConnection, type RelayEvent } from '../../bridge/index.js';
import {
  engineProtocol,
  engineSecretProtocolPrefix,
  parseRelayFrame,
  type RelayToTabFrame,
} from '../../bridge/wire.js';
import { createRelay, type EngineEvent, type Relay } from '../create-relay.js';
import { connectRouterEngine, type RouterEngine } from '../testing/router-engine.js';

// A relay with a short heartbeat, a real tab (the bridge's connectRelay over the real router),
// and a tab whose page stops answering: a socket that says hello with `heartbeat` and then answers
// pings only when the test lets it, as a frozen page does (its browser keeps the socket open and
// answers the WebSocket's own pings, but the page runs nothing).
const secret = 'h'.repeat(64);
const heartbeat = { everyMs: 50, silentMs: 400 };
let relay: Relay | undefined;
let engine: RouterEngine | undefined;
const sockets: WebSocket[] = [];

afterEach(async () => {
  engine?.close();
  for (const socket of sockets.splice(0)) socket.close();
  await relay?.close();
  relay = engine = undefined;
});

/** A relay with the test's short heartbeat; `onEngine` hears its engine events. */
async function start(onEngine?: (event: EngineEvent) => void): Promise<Relay> {
  relay = await createRelay({
    appDir: '/nonexistent',
    port: testPorts.relayHeartbeat,
    version: 'test',
    engineSecret: secret,
    engineHeartbeat: heartbeat,
    onEngine,
  });
  return relay;
}

/** A tab whose page answers the relay's pings only while `answering` is set. */
async function silentTab(relay: Relay) {
  const socket = new WebSocket(`${relay.url.replace(/^http/, 'ws')}/lmtab/engine`, [
    engineProtocol,
    `${engineSecretProtocolPrefix}${secret}`,
  ]);
  sockets.push(socket);
  const frames: RelayToTabFrame[] = [];
  const tab = { socket, frames, answering: false };
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) return;
    const frame = parseRelayFrame(data.toString())!;
    frames.push(frame);
    if (frame.type === 'ping' && tab.answering) {
      socket.send(JSON.stringify({ type: 'pong', id: frame.id }));
    }
  });
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'hello', capacity: 4, heartbeat: true }));
  return tab;
}

const chat = (relay: Relay) =>
  fetch(`${relay.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] }),
  });

describe("the relay's heartbeat to each engine tab's page", () => {
  it('sets a tab whose page answers nothing aside, serves with the others, and takes it back when it answers', async () => {
    const events: EngineEvent[] = [];
    const relay = await start((event) => events.push(event));
    engine = await connectRouterEngine(relay, secret);
    const frozen = await silentTab(relay);
    await expect.poll(() => relay!.stats().engines.length).toBe(2);

    // Within the silence bound, the silent tab takes no requests; the real tab (whose page
    // answers every ping) stays and answers them all.
    await expect.poll(() => relay!.stats().engines.length, { timeout: 3000 }).toBe(1);
    expect(relay.stats().aside).toBe(1);
    const asideNow = await (await fetch(`${relay.url}/metrics`)).text();
    expect(asideNow).toContain('lmtab_engines 1\n');
    expect(asideNow).toContain('lmtab_engines_aside 1\n');
    expect(events.find((e) => e.type === 'set-aside')).toMatchObject({ engines: 1 });
    expect(events.find((e) => e.type === 'set-aside')!.silentMs).toBeGreaterThanOrEqual(400);
    const answers = await Promise.all([chat(relay), chat(relay), chat(relay), chat(relay)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(frozen.frames.filter((f) => f.type === 'request')).toEqual([]);
    expect(engine.connection.state).toBe('connected');

    // The page runs again: it answers the next ping and is taken back, told for how long.
    frozen.answering = true;
    await expect.poll(() => relay!.stats().engines.length, { timeout: 3000 }).toBe(2);
    const rejoined = frozen.frames.find((f) => f.type === 'rejoined');
    expect(rejoined).toMatchObject({ type: 'rejoined', silentMs: expect.any(Number) });
    expect(events.map((e) => e.type)).toEqual(['connected', 'connected', 'set-aside', 'rejoined']);
    const metrics = await (await fetch(`${relay.url}/metrics`)).text();
    expect(metrics).toContain('lmtab_engine_events_total{event="set-aside"} 1');
    expect(metrics).toContain('lmtab_engine_events_total{event="rejoined"} 1');
  });

  it('holds requests while the only tab is set aside, and sends them to it once it answers again', async () => {
    const relay = await start();
    const tab = await silentTab(relay);
    await expect.poll(() => relay!.stats().engines.length).toBe(1);
    await expect.poll(() => relay!.stats().aside, { timeout: 3000 }).toBe(1);
    expect(relay.stats().engines).toEqual([]);
    const answer = chat(relay);
    await expect.poll(() => relay!.stats().waiting).toBe(1);
    expect(tab.frames.filter((f) => f.type === 'request')).toEqual([]);

    tab.answering = true;
    await expect.poll(() => tab.frames.find((f) => f.type === 'request')).toBeDefined();
    const request = tab.frames.find((f) => f.type === 'request')!;
    expect(relay.stats()).toMatchObject({ aside: 0, waiting: 0 });
    const id = (request as { id: string }).id;
    tab.socket.send(
      JSON.stringify({ type: 'head', id, status: 200, headers: [['content-type', 'text/plain']] }),
    );
    tab.socket.send(JSON.stringify({ type: 'end', id }));
    expect((await answer).status).toBe(200);
  });

  it("a real tab answers the relay's pings from its page, and says when it was set aside", async () => {
    // A stand-in relay: it pings, counts the pongs, then tells the tab it rejoined.
    const server = new WebSocketServer({ port: testPorts.relayHeartbeatTab });
    const pongs: string[] = [];
    let hello: Record<string, unknown> | undefined;
    server.on('connection', (socket) => {
      socket.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as Record<string, unknown>;
        if (frame.type === 'hello') {
          hello = frame;
          socket.send(JSON.stringify({ type: 'ping', id: '1' }));
        }
        if (frame.type === 'pong') {
          pongs.push(frame.id as string);
          socket.send(JSON.stringify({ type: 'rejoined', asideMs: 12_000, silentMs: 5000 }));
        }
      });
    });
    (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
    const events: RelayEvent[] = [];
    let connection: RelayConnection | undefined;
    try {
      connection = connectRelay({
        url: `ws://127.0.0.1:${testPorts.relayHeartbeatTab}/lmtab/engine`,
        connect: () => undefined,
        secret: () => Promise.resolve(secret),
        origin: 'http://lmtab.test',
        onEvent: (event) => events.push(event),
      });
      await expect.poll(() => pongs).toEqual(['1']);
      expect(hello).toMatchObject({ type: 'hello', heartbeat: true });
      await expect
        .poll(() => events.at(-1))
        .toMatchObject({
          type: 'state',
          state: 'connected',
          detail: expect.stringContaining("set this tab's engine aside for 12 s"),
        });
    } finally {
      connection?.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
