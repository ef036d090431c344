import { describe, expect, it } from 'vitest';
import { createOnDemandCache } from './on-demand-cache.js';

const origin = 'https://lmtab.test';

/** Cache Storage over Maps, holding each body's bytes as Cache does. */
function memoryCaches() {
  const stores = new Map<string, Map<string, { body: Uint8Array; status: number }>>();
  const open = async (name: string) => {
    const entries = stores.get(name) ?? new Map();
    stores.set(name, entries);
    const cache = {
      async match(key: string) {
        const hit = entries.get(key);
        return hit === undefined ? undefined : new Response(hit.body, { status: hit.status });
      },
      async put(key: string, response: Response) {
        entries.set(key, {
          body: new Uint8Array(await response.arrayBuffer()),
          status: response.status,
        });
      },
      async keys() {
        return [...entries.keys()].map((key) => new Request(key));
      },
      async delete(request: Request) {
        return entries.delete(request.url);
      },
    };
    return cache as unknown as Cache;
  };
  return { caches: { open } as unknown as CacheStorage, stores };
}

/** A network that answers each path with its own name, or `status` for the paths in `failing`. */
function network(failing: Record<string, number> = {}) {
  const asked: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    const url = String(input);
    asked.push(url);
    const path = new URL(url).pathname;
    const status = failing[path] ?? 200;
    return new Response(status === 200 ? `bytes of ${path}` : 'no', { status });
  }) as typeof globalThis.fetch;
  return { fetch, asked };
}

const entries = [
  { url: 'assets/wllama-abc.wasm', revision: null },
  { url: 'assets/web-llm-def.js', revision: null },
  { url: 'extra.json', revision: 'r1' },
];

describe('the on-demand engine files', () => {
  it('answers a listed file from the network once, then from the cache', async () => {
    const { caches } = memoryCaches();
    const net = network();
    const cache = createOnDemandCache({ entries, origin, caches, fetch: net.fetch });
    const url = `${origin}/assets/wllama-abc.wasm`;
    expect(cache.has(url)).toBe(true);
    expect(cache.has(`${origin}/assets/main.js`)).toBe(false);
    expect(await (await cache.respond(new Request(url))).text()).toBe(
      'bytes of /assets/wllama-abc.wasm',
    );
    expect(await (await cache.respond(new Request(url))).text()).toBe(
      'bytes of /assets/wllama-abc.wasm',
    );
    expect(net.asked).toEqual([url]);
  });

  it('answers from the network when the cache refuses the copy (full storage), and stores it later', async () => {
    const { caches } = memoryCaches();
    let refuse = true;
    const refusing = {
      open: async (name: string) => {
        const cache = await caches.open(name);
        const put = cache.put.bind(cache);
        cache.put = async (key: RequestInfo | URL, response: Response) => {
          if (!refuse) return put(key, response);
          await response.body?.getReader().read();
          throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        };
        return cache;
      },
    } as unknown as CacheStorage;
    const net = network();
    const cache = createOnDemandCache({ entries, origin, caches: refusing, fetch: net.fetch });
    const url = `${origin}/assets/wllama-abc.wasm`;
    expect(await (await cache.respond(new Request(url))).text()).toBe(
      'bytes of /assets/wllama-abc.wasm',
    );
    expect(await cache.storeAll()).toBe(0);
    refuse = false;
    expect(await cache.storeAll()).toBe(3);
    expect(await (await cache.respond(new Request(url))).text()).toBe(
      'bytes of /assets/wllama-abc.wasm',
    );
    expect(net.asked.filter((asked) => asked === url)).toHaveLength(3);
  });

  it('passes a failed answer on without keeping it', async () => {
    const { caches } = memoryCaches();
    const net = network({ '/assets/web-llm-def.js': 503 });
    const cache = createOnDemandCache({ entries, origin, caches, fetch: net.fetch });
    const request = new Request(`${origin}/assets/web-llm-def.js`);
    expect((await cache.respond(request)).status).toBe(503);
    expect((await cache.respond(request)).status).toBe(503);
    expect(net.asked).toHaveLength(2);
  });

  it('stores every file not stored yet, a revised one under its revision, and prunes others', async () => {
    const { caches, stores } = memoryCaches();
    const net = network();
    const cache = createOnDemandCache({ entries, origin, caches, fetch: net.fetch });
    await cache.respond(new Request(`${origin}/assets/wllama-abc.wasm`));
    expect(await cache.storeAll()).toBe(2);
    expect(await cache.storeAll()).toBe(0);
    expect(net.asked).toEqual([
      `${origin}/assets/wllama-abc.wasm`,
      `${origin}/assets/web-llm-def.js`,
      `${origin}/extra.json?__WB_REVISION__=r1`,
    ]);
    const next = createOnDemandCache({
      entries: [{ url: 'assets/web-llm-def.js', revision: null }],
      origin,
      caches,
      fetch: net.fetch,
    });
    await next.prune();
    expect([...stores.get('lmtab-on-demand')!.keys()]).toEqual([`${origin}/assets/web-llm-def.js`]);
  });
});
