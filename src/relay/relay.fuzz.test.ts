import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPorts } from '../../tests/support/test-ports.js';
import { createHubClient } from '../hub/index.js';
import {
  answerProblem,
  fuzzRecords,
  fuzzRequest,
  fuzzSettings,
  type FuzzRequest,
} from '../api/testing/fuzz-requests.js';
import { createRelay, type Relay } from './create-relay.js';
import { connectRouterEngine, type RouterEngine } from './testing/router-engine.js';

// Property: through the real relay, bridge and router, every request gets an answer (no reset,
// no hang) with a status below 500, in its protocol's shape. `npm run fuzz -- --runs N` runs it
// longer.
const port = testPorts.relayFuzz;
const secret = 'f'.repeat(64);
let relay: Relay;
let engine: RouterEngine;

beforeAll(async () => {
  relay = await createRelay({
    appDir: '/nonexistent',
    port,
    version: 'test',
    engineSecret: secret,
  });
  const noRepo = () =>
    Promise.resolve(Response.json({ error: 'Repository not found' }, { status: 404 }));
  engine = await connectRouterEngine(relay, secret, {
    records: fuzzRecords,
    fetch: () => Promise.resolve(new Response('not here', { status: 404 })),
    hub: {
      client: () => createHubClient({ endpoint: 'http://hub.test', fetch: noRepo }),
      download: () => {
        throw new Error('the fuzzed hub has no files');
      },
    },
  });
});

afterAll(async () => {
  engine.close();
  await relay.close();
});

/** Where the relay's own checks come in: another Host or Origin now and then. */
const relayHeaders = fc.option(
  fc.oneof(
    fc.constant({ host: 'evil.example' }),
    fc.constant({ origin: 'http://evil.example' }),
    fc.constant({ origin: `http://127.0.0.1:${port}` }),
    fc.constant({ 'x-forwarded-for': '203.0.113.9' }),
    fc.constant({ authorization: 'Bearer x', cookie: 'a=b' }),
  ),
  { freq: 5 },
);

/** Sends raw HTTP on a connection of its own; rejects when the connection breaks or hangs. */
function send(request: FuzzRequest, extra: Record<string, string>, ms = 15_000) {
  return new Promise<{ status: number; contentType: string; text: string }>((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.path,
        headers: { ...request.headers, ...extra },
        agent: false,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            contentType: String(incoming.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString(),
          }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.setTimeout(ms, () => outgoing.destroy(new Error(`no answer in ${ms} ms`)));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

describe('the relay under fuzzing', () => {
  it('answers every request, in time, below 500 and in its protocol’s shape', async () => {
    const { seed, numRuns } = fuzzSettings(150);
    await fc.assert(
      fc.asyncProperty(fuzzRequest, relayHeaders, async (request, extra) => {
        const answer = await send(request, extra ?? {});
        const problem = answerProblem(request, answer.status, answer.contentType, answer.text);
        expect(problem, `${request.method} ${request.path}`).toBeUndefined();
      }),
      { seed, numRuns, endOnFailure: true },
    );
    expect(relay.stats().engines[0]?.active).toBe(0);
  }, 600_000);
});
