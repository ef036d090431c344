import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../hub/index.js';
import { downloadModel } from '../store/index.js';
import { createMemoryDownloadStore } from '../store/testing/memory-download-store.js';
import {
  answerProblem,
  fuzzRecords,
  fuzzRequest,
  fuzzSettings,
  type FuzzRequest,
} from './testing/fuzz-requests.js';
import { routerHarness, type RouterHarness } from './testing/router-harness.js';

// Property: whatever a client sends to any route, the router answers, in time, with a 2xx or a 4xx
// in the protocol's own error shape. `npm run fuzz -- --runs N` runs it longer.
let harness: RouterHarness;

beforeAll(() => {
  // The hub knows no repository: pulls get as far as asking it, without a network.
  const noRepo = () =>
    Promise.resolve(Response.json({ error: 'Repository not found' }, { status: 404 }));
  harness = routerHarness({
    records: fuzzRecords,
    fetch: () => Promise.resolve(new Response('not here', { status: 404 })),
    hub: {
      client: () => createHubClient({ endpoint: 'http://hub.test', fetch: noRepo }),
      download: (request, { signal }) =>
        downloadModel(request, { store: createMemoryDownloadStore(), signal, retryDelayMs: 10 }),
    },
  });
});

/** Sends a request through the router and reads its whole answer, failing after `ms`. */
async function answer(request: FuzzRequest, ms = 10_000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    const response = await harness.router.handle(
      new Request(`http://lmtab.test${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.body as BodyInit | undefined,
      }),
    );
    const reading = response.text();
    const text = await Promise.race([
      reading,
      new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () =>
          reject(new Error(`no answer in ${ms} ms`)),
        ),
      ),
    ]);
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text,
    };
  } finally {
    clearTimeout(timer);
  }
}

describe('the router under fuzzing', () => {
  it('answers every request with a 2xx or a 4xx in its protocol’s shape, never a 5xx or a hang', async () => {
    const { seed, numRuns } = fuzzSettings(600);
    const tally = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        const { status, contentType, text } = await answer(request);
        const key = `${request.route} <- ${request.method}: ${status}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        const problem = answerProblem(request, status, contentType, text);
        expect(problem, `${request.method} ${request.path}`).toBeUndefined();
      }),
      { seed, numRuns, endOnFailure: true },
    );
    if (process.env.LMTAB_FUZZ_STATS !== undefined) {
      console.log(
        [...tally]
          .sort()
          .map(([key, count]) => `${key}: ${count}`)
          .join('\n'),
      );
    }
  }, 600_000);
});
