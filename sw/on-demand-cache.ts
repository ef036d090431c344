/**
 * The engine files that not every device needs (wllama's stock build for WebGPU, projectors and
 * models over 4 GiB, the memory64 kernels, web-llm): listed at build time, stored the first time
 * the engine fetches one, and all of them once the page asks (it does a minute after a stored model
 * exists), so the first visit is controlled without downloading them.
 */

/** One file of the list: a path of the origin, e.g. `/assets/wllama-CO25czjY.wasm`. */
export interface OnDemandEntry {
  url: string;
  /** workbox's revision; null for a name that carries its own hash. */
  revision?: string | null;
}

/** What {@link createOnDemandCache} works with; each defaults to the service worker's own. */
export interface OnDemandCacheOptions {
  /** The files, as the build lists them (`self.__LMTAB_ON_DEMAND`). */
  entries: readonly (OnDemandEntry | string)[];
  /** The origin the paths are on; default `self.location.origin`. */
  origin?: string;
  /** Default `self.caches`. */
  caches?: CacheStorage;
  /** Default `self.fetch`. */
  fetch?: typeof fetch;
  /** Cache name; default {@link onDemandCacheName}. */
  name?: string;
}

/** The on-demand engine files of one build. */
export interface OnDemandCache {
  /** Whether `url` is one of the listed files. */
  has(url: string): boolean;
  /** The stored copy of a listed file, else the network's answer, stored when it is whole (200). */
  respond(request: Request): Promise<Response>;
  /** Fetches and stores every listed file not stored yet, one at a time; resolves to how many it stored. */
  storeAll(): Promise<number>;
  /** Deletes stored files that are not in the list (those of an earlier build). */
  prune(): Promise<void>;
}

/** The Cache Storage name of the on-demand engine files. */
export const onDemandCacheName = 'lmtab-on-demand';

/** Keys a listed file by its URL, with `?__WB_REVISION__=` for a file without a hash in its name. */
function keyOf(entry: OnDemandEntry | string, origin: string): string {
  const { url, revision } = typeof entry === 'string' ? { url: entry, revision: null } : entry;
  const absolute = new URL(url, origin);
  if (revision) absolute.searchParams.set('__WB_REVISION__', revision);
  return absolute.href;
}

/** The on-demand cache over `options.entries`; see {@link OnDemandCache}. */
export function createOnDemandCache(options: OnDemandCacheOptions): OnDemandCache {
  const origin = options.origin ?? self.location.origin;
  const storage = options.caches ?? self.caches;
  const fetchFile = options.fetch ?? ((input: RequestInfo | URL) => self.fetch(input));
  const name = options.name ?? onDemandCacheName;
  /** The request URL (no revision) -> the cache key. */
  const keys = new Map(
    options.entries.map((entry) => {
      const url = new URL(typeof entry === 'string' ? entry : entry.url, origin).href;
      return [url, keyOf(entry, origin)] as const;
    }),
  );

  /**
   * The network's answer, a copy stored when it is whole (200). Storing never decides the answer:
   * a cache that refuses the copy (full storage, a put of the same file beside it) leaves the
   * answer as the network gave it, and the next fetch tries to store again.
   */
  async function fetchAndStore(key: string): Promise<Response> {
    const response = await fetchFile(key);
    if (response.status !== 200) return response;
    try {
      const cache = await storage.open(name);
      await cache.put(key, response.clone());
    } catch {
      // Served, not kept.
    }
    return response;
  }

  /** The stored copy, or undefined when there is none or the cache cannot be read. */
  async function stored(key: string): Promise<Response | undefined> {
    try {
      return await (await storage.open(name)).match(key);
    } catch {
      return undefined;
    }
  }

  return {
    has: (url) => keys.has(url),
    async respond(request) {
      const key = keys.get(request.url) ?? request.url;
      return (await stored(key)) ?? fetchAndStore(key);
    },
    async storeAll() {
      let count = 0;
      for (const key of keys.values()) {
        if ((await stored(key)) !== undefined) continue;
        const response = await fetchAndStore(key);
        // Read to its end, so the copy in the cache is complete before the next file starts.
        await response.arrayBuffer();
        if ((await stored(key)) !== undefined) count += 1;
      }
      return count;
    },
    async prune() {
      const cache = await storage.open(name);
      const wanted = new Set(keys.values());
      for (const request of await cache.keys()) {
        if (!wanted.has(request.url)) await cache.delete(request);
      }
    },
  };
}
