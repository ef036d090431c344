import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPorts } from '../../tests/support/test-ports.js';
import { createGateway, type Gateway } from './gateway/create-gateway.js';
import { createReplicaFront, type ReplicaFront } from './replica-front.js';

// A replica behind its gateway, as deployed: the gateway adds the token, the replica checks it.
const token = 'c'.repeat(64);
let relay: Server;
let front: ReplicaFront;
let gateway: Gateway;
const seen: Record<string, string | string[] | undefined>[] = [];

beforeAll(async () => {
  relay = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end('{"object":"list","data":[]}');
  });
  await new Promise<void>((done) => relay.listen(0, '127.0.0.1', done));
  front = await createReplicaFront({
    upstream: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    state: () => ({ ready: true, detail: 'serving' }),
    host: '127.0.0.1',
    port: testPorts.replicaGuard,
    gatewayToken: token,
  });
  gateway = await createGateway({
    routes: [{ org: 'acme', app: 'chat', auth: 'public', upstream: front.url }],
    keys: () => Promise.resolve([]),
    port: 0,
    replicaToken: token,
  });
});

afterAll(async () => {
  await gateway.close();
  await front.close();
  await new Promise((done) => relay.close(done));
});

describe('a replica behind its gateway', () => {
  it('refuses a direct call, in the protocol’s shape, and never reaches its relay', async () => {
    const direct = await fetch(`${front.url}/v1/models`);
    expect(direct.status).toBe(401);
    const body = (await direct.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toMatch(/^This app replica answers only its lmtab gateway/);
    const forged = await fetch(`${front.url}/api/tags`, {
      headers: { 'X-Lmtab-Gateway-Token': 'd'.repeat(64) },
    });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: string }).error).toContain('header value');
    expect(seen).toEqual([]);
    // Probes need no token: Knative's and the kubelet's carry none.
    expect((await fetch(`${front.url}/health/ready`)).status).toBe(200);
  });

  it('serves what comes through the gateway, whose token never reaches the relay or the client', async () => {
    const answer = await fetch(`${gateway.url}/acme/chat/v1/models`, {
      headers: { 'X-Lmtab-Gateway-Token': 'forged' },
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ object: 'list', data: [] });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.['x-lmtab-gateway-token']).toBeUndefined();
    expect(JSON.stringify([...answer.headers])).not.toContain(token);
  });
});
