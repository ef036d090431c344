import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHub } from '../../tests/support/fake-hub.js';
import type { FakeHub } from '../../tests/support/fake-hub.js';
import { LmtabError } from '../errors/index.js';
import { buildGgufChoices } from './gguf-choices.js';
import { createHubClient, DEFAULT_HUB_ENDPOINT } from './hub-client.js';
import { canonicalModelName, parseModelReference, pickChoice } from './model-reference.js';

const bytes = (length: number, seed: number) =>
  new Uint8Array(length).map((_, i) => (i * seed + 1) % 256);
const q4 = bytes(4000, 3);
const q8 = bytes(8000, 5);
const projector = bytes(1000, 7);
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

let hub: FakeHub;

beforeAll(async () => {
  hub = await startFakeHub({
    treePageSize: 2,
    repos: [
      {
        id: 'acme/Vision-GGUF',
        downloads: 1200,
        likes: 7,
        tags: ['gguf', 'image-text-to-text'],
        pipelineTag: 'image-text-to-text',
        lastModified: '2025-06-01T10:00:00.000Z',
        gguf: { total: 450_000_000, architecture: 'lfm2', context_length: 32768 },
        files: [
          { path: 'README.md', bytes: new TextEncoder().encode('# Vision\n') },
          { path: 'Vision-Q4_K_M.gguf', bytes: q4 },
          { path: 'Vision-Q8_0.gguf', bytes: q8 },
          { path: 'mmproj-Vision-F16.gguf', bytes: projector },
        ],
      },
      { id: 'acme/Text-GGUF', downloads: 50, files: [{ path: 'text-q5_k_m.gguf', bytes: q4 }] },
      { id: 'acme/Gated-GGUF', gated: true, files: [{ path: 'Gated-Q4_0.gguf', bytes: q4 }] },
      { id: 'acme/Secret-GGUF', private: true, files: [{ path: 'Secret-Q4_0.gguf', bytes: q4 }] },
    ],
  });
});

afterAll(async () => {
  await hub.close();
});

afterEach(() => {
  hub.reset();
});

async function rejection(promise: Promise<unknown>): Promise<LmtabError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LmtabError);
  return error as LmtabError;
}

describe('createHubClient against the fake hub', () => {
  it('searches GGUF repos, most downloaded first', async () => {
    const client = createHubClient({ endpoint: hub.url });
    const results = await client.search('gguf', { limit: 2 });
    expect(results).toEqual([
      {
        id: 'acme/Vision-GGUF',
        downloads: 1200,
        likes: 7,
        tags: ['gguf', 'image-text-to-text'],
        lastModified: '2025-06-01T10:00:00.000Z',
        pipelineTag: 'image-text-to-text',
        gated: false,
      },
      expect.objectContaining({ id: 'acme/Text-GGUF', downloads: 50 }),
    ]);
    const sent = new URL(hub.requests[0]?.url ?? '', hub.url).searchParams;
    expect(Object.fromEntries(sent)).toMatchObject({
      search: 'gguf',
      filter: 'gguf',
      sort: 'downloads',
      direction: '-1',
      limit: '2',
    });
    expect(sent.getAll('expand')).toContain('lastModified');
  });

  it('lists everything for a blank query and rejects a bad limit', async () => {
    const client = createHubClient({ endpoint: `${hub.url}/` });
    expect((await client.search('  ')).map((m) => m.id)).toEqual([
      'acme/Vision-GGUF',
      'acme/Text-GGUF',
      'acme/Gated-GGUF',
    ]);
    expect((await client.search('gated')).map((m) => m.gated)).toEqual([true]);
    const error = await rejection(client.search('x', { limit: 0 }));
    expect(error.code).toBe('invalid_request');
  });

  it('reads model info', async () => {
    const client = createHubClient({ endpoint: hub.url });
    const info = await client.modelInfo('acme/Vision-GGUF');
    expect(info).toMatchObject({
      id: 'acme/Vision-GGUF',
      sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      pipelineTag: 'image-text-to-text',
      gated: false,
      private: false,
      downloads: 1200,
      files: ['README.md', 'Vision-Q4_K_M.gguf', 'Vision-Q8_0.gguf', 'mmproj-Vision-F16.gguf'],
      gguf: { total: 450_000_000, architecture: 'lfm2', contextLength: 32768 },
    });
    const pinned = await client.modelInfo('acme/Vision-GGUF', { revision: info.sha });
    expect(pinned.id).toBe('acme/Vision-GGUF');
  });

  it('lists files across pages with sizes and sha256', async () => {
    const client = createHubClient({ endpoint: hub.url });
    const files = await client.listFiles('acme/Vision-GGUF');
    expect(files).toEqual([
      { path: 'README.md', size: 9, sha256: undefined },
      { path: 'Vision-Q4_K_M.gguf', size: q4.length, sha256: sha256(q4) },
      { path: 'Vision-Q8_0.gguf', size: q8.length, sha256: sha256(q8) },
      { path: 'mmproj-Vision-F16.gguf', size: projector.length, sha256: sha256(projector) },
    ]);
    expect(hub.requests.map((r) => r.kind)).toEqual(['tree', 'tree']);
  });

  it('resolves a reference to files and a URL that serves them', async () => {
    const client = createHubClient({ endpoint: hub.url });
    const reference = parseModelReference('hf.co/acme/Vision-GGUF');
    const { choices } = buildGgufChoices(
      await client.listFiles(reference.repo, { revision: reference.revision }),
    );
    const choice = pickChoice(choices, reference.quantization, { repo: reference.repo });
    expect(canonicalModelName(reference.repo, choice.quantization)).toBe(
      'hf.co/acme/Vision-GGUF:Q4_K_M',
    );
    expect(choice.projector?.path).toBe('mmproj-Vision-F16.gguf');
    const url = client.fileUrl(reference.repo, choice.files[0]?.path ?? '', reference.revision);
    expect(url).toBe(`${hub.url}/acme/Vision-GGUF/resolve/main/Vision-Q4_K_M.gguf`);
    const response = await fetch(url, { headers: { Range: 'bytes=0-99', ...client.headers() } });
    expect(response.status).toBe(206);
    expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(q4.subarray(0, 100)));
  });

  it('answers model_not_found for a missing repository or revision', async () => {
    const client = createHubClient({ endpoint: hub.url });
    const missing = await rejection(client.modelInfo('acme/Nope'));
    expect(missing.code).toBe('model_not_found');
    expect(missing.message).toBe(
      `Repository acme/Nope was not found on ${hub.url}: expected a model repository at GET ${hub.url}/api/models/acme/Nope, got HTTP 404 RepoNotFound: Repository not found.`,
    );
    const revision = await rejection(client.listFiles('acme/Vision-GGUF', { revision: 'v9' }));
    expect(revision.code).toBe('model_not_found');
    expect(revision.message).toMatch(/^Revision "v9" of acme\/Vision-GGUF was not found/);
  });

  it('hints at a token when the hub hides a private repository', async () => {
    const anonymous = createHubClient({ endpoint: hub.url });
    const hidden = await rejection(anonymous.listFiles('acme/Secret-GGUF'));
    expect(hidden.code).toBe('model_not_found');
    expect(hidden.message).toContain('(if it is private or gated, set a hub token)');
    const authorized = createHubClient({ endpoint: hub.url, token: hub.token });
    expect((await authorized.listFiles('acme/Secret-GGUF')).map((f) => f.path)).toEqual([
      'Secret-Q4_0.gguf',
    ]);
    expect(hub.requests.at(-1)?.authorization).toBe(`Bearer ${hub.token}`);
  });

  it('answers unauthorized when the token is refused', async () => {
    const client = createHubClient({ endpoint: hub.url, token: 'hf_wrong' });
    const error = await rejection(client.modelInfo('acme/Gated-GGUF'));
    expect(error.code).toBe('unauthorized');
    expect(error.message).toMatch(/^acme\/Gated-GGUF is gated or private: set a hub token/);
    expect(error.message).toContain('Invalid credentials in Authorization header');
    expect(error.message).toContain('the token sent was refused');
  });

  it('answers download_failed when the hub cannot be reached', async () => {
    const closed = await startFakeHub({ repos: [] });
    await closed.close();
    const client = createHubClient({ endpoint: closed.url });
    const error = await rejection(client.search('x'));
    expect(error.code).toBe('download_failed');
    expect(error.message).toMatch(
      new RegExp(`^Could not reach the hub at ${closed.url}: expected an HTTP answer to GET`),
    );
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('reads the model card, and none where the repository has no README', async () => {
    const client = createHubClient({ endpoint: hub.url });
    expect(await client.modelCard('acme/Vision-GGUF')).toBe('# Vision\n');
    expect(await client.modelCard('acme/Text-GGUF')).toBeUndefined();
    const error = await rejection(client.modelCard('acme/Nope-GGUF'));
    expect(error.code).toBe('model_not_found');
  });

  it('answers a rate limit with status 429 and the wait the hub asked for', async () => {
    hub.failApi(429, { times: 1 });
    const client = createHubClient({ endpoint: hub.url });
    const error = await rejection(client.search('Vision'));
    expect(error).toMatchObject({ code: 'hub_rate_limited', status: 429, retryAfter: 30 });
    expect(error.message).toMatch(/is rate-limiting requests: expected HTTP 200 .* got HTTP 429/);
    expect(await client.search('Vision')).toHaveLength(1);
  });

  it('answers aborted when the signal fires', async () => {
    const client = createHubClient({ endpoint: hub.url });
    const error = await rejection(
      client.listFiles('acme/Vision-GGUF', { signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('aborted');
  });
});

describe('createHubClient with an injected fetch', () => {
  const answering =
    (status: number, body: string, headers: Record<string, string> = {}) =>
    async () =>
      new Response(body, { status, headers });

  it('defaults to huggingface.co and treats a blank endpoint as unset', () => {
    expect(createHubClient().endpoint).toBe(DEFAULT_HUB_ENDPOINT);
    expect(createHubClient({ endpoint: ' ' }).endpoint).toBe('https://huggingface.co');
    expect(createHubClient({ endpoint: 'https://hf-mirror.example/hub/' }).endpoint).toBe(
      'https://hf-mirror.example/hub',
    );
    expect(() => createHubClient({ endpoint: 'huggingface.co' })).toThrowError(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('builds resolve URLs with encoded revision and path', () => {
    const client = createHubClient({ token: 'hf_x' });
    expect(client.fileUrl('org/repo', 'sub dir/model #1.gguf', 'refs/pr/1')).toBe(
      'https://huggingface.co/org/repo/resolve/refs%2Fpr%2F1/sub%20dir/model%20%231.gguf',
    );
    expect(client.headers()).toEqual({ Authorization: 'Bearer hf_x' });
    expect(createHubClient().headers()).toEqual({});
    expect(() => client.fileUrl('not a repo', 'x.gguf')).toThrowError(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('maps 401 GatedRepo to unauthorized and 5xx to download_failed', async () => {
    const gated = createHubClient({
      fetch: answering(401, '{"error":"restricted"}', { 'X-Error-Code': 'GatedRepo' }),
    });
    const refused = await rejection(gated.listFiles('org/repo'));
    expect(refused.code).toBe('unauthorized');
    expect(refused.message).toBe(
      'org/repo is gated or private: set a hub token (expected access to GET https://huggingface.co/api/models/org/repo/tree/main?recursive=true, got HTTP 401 GatedRepo: restricted; no token was sent).',
    );
    const down = createHubClient({ fetch: answering(503, 'upstream down') });
    const failed = await rejection(down.modelInfo('org/repo'));
    expect(failed.code).toBe('download_failed');
    expect(failed.message).toBe(
      'Expected HTTP 200 from the hub at https://huggingface.co for GET https://huggingface.co/api/models/org/repo, got HTTP 503: "upstream down".',
    );
  });

  it('rejects answers of the wrong shape', async () => {
    const html = createHubClient({ fetch: answering(200, '<html>login</html>') });
    const notJson = await rejection(html.search('x'));
    expect(notJson.code).toBe('download_failed');
    expect(notJson.message).toMatch(/^Expected JSON from GET .*, got "<html>login<\/html>"\.$/);
    const shaped = createHubClient({ fetch: answering(200, '[{"path":"a.gguf"}]') });
    const wrong = await rejection(shaped.listFiles('org/repo'));
    expect(wrong.message).toMatch(/^Expected a JSON array of tree entries from GET .* at 0\.type/);
  });

  it('does not follow pagination links to another origin', async () => {
    const seen: string[] = [];
    const client = createHubClient({
      token: 'hf_secret',
      fetch: async (input) => {
        seen.push(String(input));
        return new Response('[{"type":"file","path":"a.gguf","size":1}]', {
          headers: { Link: '<https://evil.example/api/next>; rel="next"' },
        });
      },
    });
    expect(await client.listFiles('org/repo')).toEqual([{ path: 'a.gguf', size: 1 }]);
    expect(seen).toHaveLength(1);
  });
});

describe('createHubClient errors outside a repository', () => {
  it('names the hub when a search is refused or the endpoint is wrong', async () => {
    const refused = createHubClient({
      token: 'hf_bad',
      fetch: async () =>
        new Response('{"error":"Invalid credentials in Authorization header"}', { status: 401 }),
    });
    const error = await rejection(refused.search('x'));
    expect(error.code).toBe('unauthorized');
    expect(error.message).toMatch(
      /^The hub at https:\/\/huggingface\.co refused the request: set a hub token that is valid/,
    );
    const wrongEndpoint = createHubClient({
      endpoint: 'http://localhost:9/not-a-hub',
      fetch: async () => new Response('Not Found', { status: 404 }),
    });
    const missing = await rejection(wrongEndpoint.search('x'));
    expect(missing.code).toBe('download_failed');
    expect(missing.message).toContain('got HTTP 404: "Not Found"');
  });
});
