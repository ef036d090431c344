import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplicaFront } from './replica-front.js';
import type { ReplicaFront, ReplicaState } from './replica-front.js';
import { testPorts } from '../../tests/support/test-ports.js';

const frontPort = testPorts.replicaFront;
const relayPort = testPorts.replicaRelay;
let relay: Server;
let front: ReplicaFront;
let state: ReplicaState = { ready: false, detail: 'pulling hf.co/org/repo:Q4_K_M' };
const seen: string[] = [];

beforeAll(async () => {
  relay = createServer((request, response) => {
    seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? '-'}`);
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end('{"object":"list","data":[]}');
  });
  await new Promise<void>((done) => relay.listen(relayPort, '127.0.0.1', done));
  front = await createReplicaFront({
    upstream: `http://127.0.0.1:${relayPort}`,
    state: () => state,
    host: '127.0.0.1',
    port: frontPort,
  });
});

afterAll(async () => {
  await front.close();
  await new Promise((done) => relay.close(done));
});

describe('createReplicaFront', () => {
  it('is not ready, and refuses API requests with 503, until the model is loaded', async () => {
    const ready = await fetch(`${front.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: 'starting',
      detail: 'pulling hf.co/org/repo:Q4_K_M',
    });
    expect((await fetch(`${front.url}/health`)).status).toBe(200);
    const early = await fetch(`${front.url}/v1/models`);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('5');
    expect(((await early.json()) as { error: { message: string } }).error.message).toBe(
      'This replica is not ready yet: pulling hf.co/org/repo:Q4_K_M.',
    );
    expect(seen).toEqual([]);
  });

  it('forwards /v1 and /api to the relay once ready, without Authorization', async () => {
    state = { ready: true, detail: 'serving hf.co/org/repo:Q4_K_M' };
    expect((await fetch(`${front.url}/health/ready`)).status).toBe(200);
    const models = await fetch(`${front.url}/v1/models?x=1`, {
      headers: { Authorization: 'Key lmtab_x' },
    });
    expect(await models.json()).toEqual({ object: 'list', data: [] });
    await fetch(`${front.url}/api/tags`);
    expect(seen).toEqual(['GET /v1/models?x=1 -', 'GET /api/tags -']);
    const other = await fetch(`${front.url}/index.html`);
    expect(other.status).toBe(404);
  });
});
