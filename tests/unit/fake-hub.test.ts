import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHub } from '../support/fake-hub.js';
import type { FakeHub } from '../support/fake-hub.js';

const modelBytes = new Uint8Array(300_000).map((_, i) => (i * 7 + 3) % 251);
const visionBytes = new Uint8Array(1000).map((_, i) => i % 13);
const projectorBytes = new Uint8Array(500).map((_, i) => i % 17);
const readme = new TextEncoder().encode('# A model\n');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let hub: FakeHub;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'fake-hub-'));
  await writeFile(join(folder, 'disk.gguf'), modelBytes);
  hub = await startFakeHub({
    treePageSize: 3,
    repos: [
      {
        id: 'acme/Tiny-GGUF',
        downloads: 500,
        likes: 5,
        tags: ['gguf', 'text-generation'],
        gguf: { total: 350_000_000, architecture: 'lfm2', context_length: 32768 },
        files: [
          { path: 'README.md', bytes: readme },
          { path: 'Tiny-Q4_K_M.gguf', bytes: modelBytes },
          { path: 'Q8_0/Tiny-Q8_0-00001-of-00002.gguf', bytes: modelBytes.subarray(0, 10) },
          { path: 'Q8_0/Tiny-Q8_0-00002-of-00002.gguf', bytes: modelBytes.subarray(10, 20) },
        ],
      },
      {
        id: 'acme/Vision-GGUF',
        downloads: 900,
        pipelineTag: 'image-text-to-text',
        files: [
          { path: 'Vision-Q4_K_M.gguf', bytes: visionBytes },
          { path: 'mmproj-Vision-F16.gguf', bytes: projectorBytes },
        ],
      },
      {
        id: 'acme/Gated-GGUF',
        gated: true,
        files: [{ path: 'Gated-Q4_0.gguf', bytes: visionBytes }],
      },
      {
        id: 'acme/Secret-GGUF',
        private: true,
        files: [{ path: 'Secret-Q4_0.gguf', bytes: visionBytes }],
      },
      { id: 'other/Safetensors', tags: ['safetensors'], files: [] },
      { id: 'acme/Disk-GGUF', files: [{ path: 'disk.gguf', file: join(folder, 'disk.gguf') }] },
    ],
  });
});

afterAll(async () => {
  await hub.close();
  await rm(folder, { recursive: true, force: true });
});

afterEach(() => {
  hub.reset();
});

const get = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init);
const json = async (path: string, init?: RequestInit) => (await get(path, init)).json();

describe('search', () => {
  it('filters, sorts and limits like the hub', async () => {
    const all = (await json('/api/models?filter=gguf&sort=downloads&direction=-1')) as {
      id: string;
    }[];
    expect(all.map((m) => m.id)).toEqual([
      'acme/Vision-GGUF',
      'acme/Tiny-GGUF',
      'acme/Gated-GGUF',
      'acme/Disk-GGUF',
    ]);
    const some = (await json('/api/models?search=tiny&filter=gguf&limit=1')) as { id: string }[];
    expect(some.map((m) => m.id)).toEqual(['acme/Tiny-GGUF']);
    const ascending = (await json(
      '/api/models?filter=gguf&sort=downloads&direction=1&limit=2',
    )) as {
      id: string;
    }[];
    expect(ascending.map((m) => m.id)).toEqual(['acme/Gated-GGUF', 'acme/Disk-GGUF']);
  });

  it('answers the short field list by default and exactly the expanded fields otherwise', async () => {
    const [plain] = (await json('/api/models?search=Tiny')) as Record<string, unknown>[];
    expect(plain).toMatchObject({ id: 'acme/Tiny-GGUF', downloads: 500, likes: 5 });
    expect(plain).not.toHaveProperty('lastModified');
    const [expanded] = (await json(
      '/api/models?search=Tiny&expand=downloads&expand=lastModified&expand=pipeline_tag',
    )) as Record<string, unknown>[];
    expect(Object.keys(expanded ?? {}).sort()).toEqual([
      '_id',
      'downloads',
      'id',
      'lastModified',
      'pipeline_tag',
    ]);
    expect((await get('/api/models?expand=nonsense')).status).toBe(400);
  });

  it('shows private repos only with the token', async () => {
    const anonymous = (await json('/api/models?search=Secret')) as unknown[];
    expect(anonymous).toEqual([]);
    const authorized = (await json('/api/models?search=Secret', {
      headers: { Authorization: `Bearer ${hub.token}` },
    })) as { id: string }[];
    expect(authorized.map((m) => m.id)).toEqual(['acme/Secret-GGUF']);
  });
});

describe('model info', () => {
  it('has the hub shape', async () => {
    const info = (await json('/api/models/acme/Tiny-GGUF')) as Record<string, unknown>;
    expect(info).toMatchObject({
      id: 'acme/Tiny-GGUF',
      sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      tags: ['gguf', 'text-generation'],
      gated: false,
      private: false,
      gguf: { total: 350_000_000, architecture: 'lfm2', context_length: 32768 },
      siblings: [
        { rfilename: 'README.md' },
        { rfilename: 'Tiny-Q4_K_M.gguf' },
        { rfilename: 'Q8_0/Tiny-Q8_0-00001-of-00002.gguf' },
        { rfilename: 'Q8_0/Tiny-Q8_0-00002-of-00002.gguf' },
      ],
    });
    const atRevision = (await json(`/api/models/acme/Tiny-GGUF/revision/${String(info.sha)}`)) as {
      id: string;
    };
    expect(atRevision.id).toBe('acme/Tiny-GGUF');
  });

  it('answers 404 RepoNotFound, 404 RevisionNotFound and 401 for private repos', async () => {
    const missing = await get('/api/models/acme/Nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('X-Error-Code')).toBe('RepoNotFound');
    expect(await missing.json()).toEqual({ error: 'Repository not found' });
    const badRevision = await get('/api/models/acme/Tiny-GGUF/revision/nope');
    expect(badRevision.status).toBe(404);
    expect(badRevision.headers.get('X-Error-Code')).toBe('RevisionNotFound');
    const secret = await get('/api/models/acme/Secret-GGUF');
    expect(secret.status).toBe(401);
    expect(secret.headers.get('X-Error-Code')).toBe('RepoNotFound');
    const withToken = await get('/api/models/acme/Secret-GGUF', {
      headers: { Authorization: `Bearer ${hub.token}` },
    });
    expect(withToken.status).toBe(200);
    const wrongToken = await get('/api/models/acme/Tiny-GGUF', {
      headers: { Authorization: 'Bearer hf_wrong' },
    });
    expect(wrongToken.status).toBe(401);
    expect(wrongToken.headers.get('X-Error-Message')).toBe(
      'Invalid credentials in Authorization header',
    );
  });

  it('keeps a gated repo description public', async () => {
    const info = (await json('/api/models/acme/Gated-GGUF')) as { gated: unknown };
    expect(info.gated).toBe('auto');
  });
});

describe('tree', () => {
  it('lists files with size, oid and lfs sha256, paginated by Link', async () => {
    const first = await get('/api/models/acme/Tiny-GGUF/tree/main?recursive=true');
    const page1 = (await first.json()) as Record<string, unknown>[];
    const link = first.headers.get('Link');
    expect(link).toMatch(/^<http:\/\/.+cursor=.+>; rel="next"$/);
    const next = /<([^>]+)>/.exec(link ?? '')?.[1] ?? '';
    const second = await fetch(next);
    expect(second.headers.get('Link')).toBeNull();
    const entries = [...page1, ...((await second.json()) as Record<string, unknown>[])];
    expect(entries.map((e) => [e.type, e.path])).toEqual([
      ['directory', 'Q8_0'],
      ['file', 'Q8_0/Tiny-Q8_0-00001-of-00002.gguf'],
      ['file', 'Q8_0/Tiny-Q8_0-00002-of-00002.gguf'],
      ['file', 'README.md'],
      ['file', 'Tiny-Q4_K_M.gguf'],
    ]);
    const model = entries.find((e) => e.path === 'Tiny-Q4_K_M.gguf');
    expect(model).toEqual({
      type: 'file',
      oid: expect.stringMatching(/^[0-9a-f]{40}$/),
      size: modelBytes.length,
      path: 'Tiny-Q4_K_M.gguf',
      lfs: { oid: sha256(modelBytes), size: modelBytes.length, pointerSize: expect.any(Number) },
    });
    const text = entries.find((e) => e.path === 'README.md');
    const gitOid = createHash('sha1')
      .update(`blob ${readme.length}\0`)
      .update(readme)
      .digest('hex');
    expect(text).toEqual({ type: 'file', oid: gitOid, size: readme.length, path: 'README.md' });
  });

  it('lists one folder without recursion', async () => {
    const entries = (await json('/api/models/acme/Tiny-GGUF/tree/main/Q8_0')) as { path: string }[];
    expect(entries.map((e) => e.path)).toEqual([
      'Q8_0/Tiny-Q8_0-00001-of-00002.gguf',
      'Q8_0/Tiny-Q8_0-00002-of-00002.gguf',
    ]);
  });

  it('advertises a wrong sha256 on request', async () => {
    hub.wrongSha('Tiny-Q4_K_M.gguf');
    const entries = (await json('/api/models/acme/Tiny-GGUF/tree/main')) as {
      path: string;
      lfs?: { oid: string };
    }[];
    const advertised = entries.find((e) => e.path === 'Tiny-Q4_K_M.gguf')?.lfs?.oid;
    expect(advertised).toMatch(/^[0-9a-f]{64}$/);
    expect(advertised).not.toBe(sha256(modelBytes));
    expect(hub.sha256('Tiny-Q4_K_M.gguf')).toBe(sha256(modelBytes));
    const head = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      method: 'HEAD',
      redirect: 'manual',
    });
    expect(head.headers.get('X-Linked-Etag')).toBe(`"${advertised}"`);
    const raw = await (await get('/acme/Tiny-GGUF/raw/main/Tiny-Q4_K_M.gguf')).text();
    expect(raw).toContain(`oid sha256:${advertised}`);
    // The bytes themselves do not change.
    const bytes = new Uint8Array(
      await (await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf')).arrayBuffer(),
    );
    expect(sha256(bytes)).toBe(sha256(modelBytes));
  });
});

describe('resolve and CDN', () => {
  it('redirects to the CDN and serves the bytes', async () => {
    const redirect = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      redirect: 'manual',
    });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('Location')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cdn\//);
    expect(redirect.headers.get('X-Linked-Size')).toBe(String(modelBytes.length));
    const response = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf');
    expect(response.status).toBe(200);
    expect(response.headers.get('Accept-Ranges')).toBe('bytes');
    expect(response.headers.get('ETag')).toBe(`"${sha256(modelBytes)}"`);
    expect(response.headers.get('Content-Length')).toBe(String(modelBytes.length));
    expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(modelBytes));
    expect(hub.requestsFor('Tiny-Q4_K_M.gguf').map((r) => [r.method, r.kind, r.status])).toEqual([
      ['GET', 'resolve', 302],
      ['GET', 'resolve', 302],
      ['GET', 'cdn', 200],
    ]);
  });

  it('answers HEAD with X-Linked-Etag and X-Linked-Size', async () => {
    const head = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      method: 'HEAD',
      redirect: 'manual',
    });
    expect(head.status).toBe(302);
    expect(head.headers.get('X-Linked-Etag')).toBe(`"${sha256(modelBytes)}"`);
    expect(head.headers.get('X-Linked-Size')).toBe(String(modelBytes.length));
  });

  it('serves byte ranges with 206 and Content-Range, and records them', async () => {
    const part = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      headers: { Range: 'bytes=100-199' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('Content-Range')).toBe(`bytes 100-199/${modelBytes.length}`);
    expect(sha256(new Uint8Array(await part.arrayBuffer()))).toBe(
      sha256(modelBytes.subarray(100, 200)),
    );
    const tail = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      headers: { Range: 'bytes=-10' },
    });
    expect(sha256(new Uint8Array(await tail.arrayBuffer()))).toBe(sha256(modelBytes.subarray(-10)));
    const open = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      headers: { Range: 'bytes=299990-' },
    });
    expect(open.headers.get('Content-Range')).toBe(`bytes 299990-299999/${modelBytes.length}`);
    await open.arrayBuffer();
    const size = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      headers: { Range: 'bytes=0-0' },
    });
    expect(size.headers.get('Content-Range')).toBe(`bytes 0-0/${modelBytes.length}`);
    await size.arrayBuffer();
    const beyond = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      headers: { Range: 'bytes=999999-' },
    });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('Content-Range')).toBe(`bytes */${modelBytes.length}`);
    expect(hub.ranges('acme/Tiny-GGUF/Tiny-Q4_K_M.gguf')).toEqual([
      'bytes=100-199',
      'bytes=-10',
      'bytes=299990-',
      'bytes=0-0',
    ]);
  });

  it('serves small non-LFS files directly', async () => {
    const response = await get('/acme/Tiny-GGUF/resolve/main/README.md', { redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('# A model\n');
  });

  it('streams a file from disk, ranges included', async () => {
    const response = await get('/acme/Disk-GGUF/resolve/main/disk.gguf', {
      headers: { Range: 'bytes=70000-70009' },
    });
    expect(response.status).toBe(206);
    expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(
      sha256(modelBytes.subarray(70000, 70010)),
    );
    const whole = new Uint8Array(
      await (await get('/acme/Disk-GGUF/resolve/main/disk.gguf')).arrayBuffer(),
    );
    expect(sha256(whole)).toBe(sha256(modelBytes));
  });

  it('answers 404 EntryNotFound for a missing file', async () => {
    const response = await get('/acme/Tiny-GGUF/resolve/main/missing.gguf');
    expect(response.status).toBe(404);
    expect(response.headers.get('X-Error-Code')).toBe('EntryNotFound');
    expect((await get('/acme/Nope/resolve/main/x.gguf')).status).toBe(404);
  });

  it('asks for the token on gated files only', async () => {
    const refused = await get('/acme/Gated-GGUF/resolve/main/Gated-Q4_0.gguf');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('X-Error-Code')).toBe('GatedRepo');
    const tree = await get('/api/models/acme/Gated-GGUF/tree/main?recursive=true');
    expect(tree.status).toBe(200);
    const allowed = await get('/acme/Gated-GGUF/resolve/main/Gated-Q4_0.gguf', {
      headers: { Authorization: `Bearer ${hub.token}` },
    });
    expect(allowed.status).toBe(200);
    expect(sha256(new Uint8Array(await allowed.arrayBuffer()))).toBe(sha256(visionBytes));
  });
});

describe('CORS', () => {
  it('marks every response readable cross-origin', async () => {
    for (const response of [
      await get('/api/models?search=Tiny'),
      await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', { redirect: 'manual' }),
      await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
        headers: { Range: 'bytes=0-1' },
      }),
      await get('/acme/Nope/resolve/main/x.gguf'),
    ]) {
      await response.arrayBuffer();
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(response.headers.get('Cross-Origin-Resource-Policy')).toBe('cross-origin');
      const exposed = response.headers.get('Access-Control-Expose-Headers') ?? '';
      for (const header of [
        'Content-Range',
        'ETag',
        'Content-Length',
        'X-Linked-Etag',
        'X-Linked-Size',
        'Accept-Ranges',
      ]) {
        expect(exposed).toContain(header);
      }
    }
  });

  it('answers preflight for Authorization and Range', async () => {
    const response = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization,range',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain(
      'authorization',
    );
    expect(response.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('range');
    expect(response.headers.get('Access-Control-Allow-Methods')).toContain('GET');
  });
});

describe('failure controls', () => {
  it('cuts the next download after some bytes, once, and records the resume range', async () => {
    hub.cutAfter('Tiny-Q4_K_M.gguf', 70_000);
    const first = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf');
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    let received = 0;
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received += value.length;
        }
      })(),
    ).rejects.toThrow();
    expect(received).toBe(70_000);
    const resumed = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf', {
      headers: { Range: `bytes=${received}-` },
    });
    expect(resumed.status).toBe(206);
    expect(sha256(new Uint8Array(await resumed.arrayBuffer()))).toBe(
      sha256(modelBytes.subarray(70_000)),
    );
    expect(hub.ranges('Tiny-Q4_K_M.gguf')).toEqual([null, 'bytes=70000-']);
  });

  it('fails a file with a status a given number of times', async () => {
    hub.fail('Tiny-Q4_K_M.gguf', 503, { times: 1 });
    expect((await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf')).status).toBe(503);
    const second = await get('/acme/Tiny-GGUF/resolve/main/Tiny-Q4_K_M.gguf');
    expect(second.status).toBe(200);
    await second.arrayBuffer();
    hub.fail('Vision-Q4_K_M.gguf', 404);
    expect((await get('/acme/Vision-GGUF/resolve/main/Vision-Q4_K_M.gguf')).status).toBe(404);
    expect((await get('/acme/Vision-GGUF/resolve/main/Vision-Q4_K_M.gguf')).status).toBe(404);
  });

  it('slows a file down', async () => {
    hub.slow('Vision-Q4_K_M.gguf', 4000);
    const started = performance.now();
    const response = await get('/acme/Vision-GGUF/resolve/main/Vision-Q4_K_M.gguf');
    expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(visionBytes));
    expect(performance.now() - started).toBeGreaterThan(200);
  });

  it('names files by ORG/REPO/PATH and refuses unknown ones', () => {
    expect(hub.sha256('acme/Vision-GGUF/mmproj-Vision-F16.gguf')).toBe(sha256(projectorBytes));
    expect(() => hub.cutAfter('nope.gguf', 1)).toThrow(/no fixture file/);
  });

  it('logs every request with its range and authorization', async () => {
    await (
      await get('/api/models/acme/Tiny-GGUF', { headers: { Authorization: `Bearer ${hub.token}` } })
    ).json();
    expect(hub.requests).toEqual([
      {
        method: 'GET',
        url: '/api/models/acme/Tiny-GGUF',
        kind: 'model-info',
        range: null,
        authorization: `Bearer ${hub.token}`,
        status: 200,
      },
    ]);
  });
});
