import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fixture file: bytes in memory, or a file on disk streamed on demand. */
export type FakeHubFile =
  | {
      /** Path inside the repository, `/`-separated. */
      path: string;
      bytes: Uint8Array;
      /** Stored in LFS (tree `lfs`, resolve redirects to the CDN); default for `.gguf` and >= 10 MiB. */
      lfs?: boolean;
    }
  | {
      path: string;
      /** Absolute path of the file on disk. */
      file: string;
      /** Its sha256 in hex, to skip hashing a large file at startup. */
      sha256?: string;
      lfs?: boolean;
    };

/** A fixture repository. */
export interface FakeHubRepo {
  /** `ORG/REPO`. */
  id: string;
  /** Default 0. */
  downloads?: number;
  /** Default 0. */
  likes?: number;
  /** Default `['gguf']`. */
  tags?: string[];
  /** The hub's `pipeline_tag`; default `text-generation`. */
  pipelineTag?: string;
  /** ISO 8601; default `2025-01-01T00:00:00.000Z`. */
  lastModified?: string;
  /** Downloads (resolve, raw) answer 401 `GatedRepo` without the hub's token; info and tree stay public. */
  gated?: boolean;
  /** Every call answers 401 `RepoNotFound` without the token, and search hides the repo. */
  private?: boolean;
  /** Commit id (40 hex); default derived from the id and contents. Served besides `main` and `HEAD`. */
  sha?: string;
  /** The model info's `gguf` block, when set. */
  gguf?: Record<string, unknown>;
  /** The repository's files at every revision it serves. */
  files: FakeHubFile[];
}

/** Options of {@link startFakeHub}. */
export interface FakeHubOptions {
  /** The repositories served; ids are matched case-insensitively, as on the hub. */
  repos: FakeHubRepo[];
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** The token gated and private repos accept; default `hf_fake_token`. */
  token?: string;
  /** Tree entries per page before a `Link: rel="next"` page; default 1000. */
  treePageSize?: number;
}

/** One request the fake hub received. */
export interface FakeHubRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  kind: 'search' | 'model-info' | 'tree' | 'resolve' | 'raw' | 'cdn' | 'preflight' | 'unknown';
  /** `ORG/REPO/PATH` of the file asked for, for resolve, raw and cdn requests. */
  file?: string;
  /** The `Range` header, or null. */
  range: string | null;
  /** The `Authorization` header, or null. */
  authorization: string | null;
  /** Status answered (0 until the answer starts). */
  status: number;
}

/** A running fake hub: its URL, failure controls and what it received. */
export interface FakeHub {
  /** `http://HOST:PORT`, to use as `HF_ENDPOINT`. */
  readonly url: string;
  /** The token gated and private repos accept. */
  readonly token: string;
  /** Every request so far, in order. */
  readonly requests: readonly FakeHubRequest[];
  /** Stops the server, cutting open connections. */
  close(): Promise<void>;
  /**
   * The next GET that serves this file's bytes sends `bytes` body bytes, then cuts the connection
   * (once). `file` is `ORG/REPO/PATH`, or a path found in one repo only.
   */
  cutAfter(file: string, bytes: number): void;
  /** The listing, `X-Linked-Etag` and LFS pointer advertise a wrong sha256 (LFS files); false undoes. */
  wrongSha(file: string, wrong?: boolean): void;
  /** Serves the file's bytes at about this rate; 0 or undefined undoes. */
  slow(file: string, bytesPerSecond: number | undefined): void;
  /** Requests naming the file answer `status` (`times` times; default until reset). */
  fail(file: string, status: number, options?: { times?: number }): void;
  /**
   * API calls (search, model info, tree) answer `status` (`times` times; default until reset);
   * a 429 comes with `Retry-After: 30`, as the hub's rate limiter sends.
   */
  failApi(status: number, options?: { times?: number }): void;
  /** Clears every control and the request log. */
  reset(): void;
  /** The true sha256 (hex) of a file's bytes. */
  sha256(file: string): string;
  /** Requests that named the file (resolve, raw, cdn). */
  requestsFor(file: string): FakeHubRequest[];
  /** The `Range` header (or null) of each GET that was answered with the file's bytes. */
  ranges(file: string): (string | null)[];
}

interface StoredFile {
  key: string;
  repo: StoredRepo;
  path: string;
  size: number;
  sha256: string;
  gitOid: string;
  lfs: boolean;
  bytes?: Uint8Array;
  diskPath?: string;
}

interface StoredRepo {
  spec: FakeHubRepo;
  id: string;
  sha: string;
  files: StoredFile[];
}

interface Controls {
  cut: Map<string, number>;
  wrong: Set<string>;
  slow: Map<string, number>;
  fail: Map<string, { status: number; times: number }>;
  api?: { status: number; times: number };
}

const defaultDate = '2025-01-01T00:00:00.000Z';
const chunkSize = 64 * 1024;
const exposed = [
  'Content-Range',
  'ETag',
  'Content-Length',
  'X-Linked-Etag',
  'X-Linked-Size',
  'Accept-Ranges',
  'Link',
  'X-Error-Code',
  'X-Error-Message',
  'X-Repo-Commit',
  'Retry-After',
].join(', ');
const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': exposed,
  'Cross-Origin-Resource-Policy': 'cross-origin',
};
const expandable = new Set([
  'author',
  'createdAt',
  'downloads',
  'gated',
  'gguf',
  'lastModified',
  'library_name',
  'likes',
  'pipeline_tag',
  'private',
  'sha',
  'siblings',
  'tags',
]);

/** Starts a fake Hugging Face hub serving the fixture repos with the real API's shapes. */
export async function startFakeHub(options: FakeHubOptions): Promise<FakeHub> {
  const token = options.token ?? 'hf_fake_token';
  const treePageSize = options.treePageSize ?? 1000;
  const repos = new Map<string, StoredRepo>();
  for (const spec of options.repos) {
    const repo = await storeRepo(spec);
    repos.set(repo.id.toLowerCase(), repo);
  }
  const controls: Controls = { cut: new Map(), wrong: new Set(), slow: new Map(), fail: new Map() };
  const requests: FakeHubRequest[] = [];

  const server = createServer((req, res) => {
    const record: FakeHubRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      kind: 'unknown',
      range: req.headers.range ?? null,
      authorization: req.headers.authorization ?? null,
      status: 0,
    };
    requests.push(record);
    const context: Context = { req, res, record, repos, controls, token, treePageSize };
    handle(context).catch((error: unknown) => {
      if (!res.headersSent) {
        sendJson(context, 500, { error: error instanceof Error ? error.message : String(error) });
      } else {
        res.destroy();
      }
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const findKey = (file: string): string => {
    const all = [...repos.values()].flatMap((repo) => repo.files);
    const exact = all.find((stored) => stored.key.toLowerCase() === file.toLowerCase());
    if (exact) return exact.key;
    const matches = all.filter((stored) => stored.path === file);
    if (matches.length === 1 && matches[0]) return matches[0].key;
    throw new Error(
      matches.length === 0
        ? `fake hub: no fixture file ${file}`
        : `fake hub: ${file} is in several repos; name it ORG/REPO/${file}`,
    );
  };
  const storedFile = (file: string): StoredFile => {
    const key = findKey(file);
    const found = [...repos.values()].flatMap((repo) => repo.files).find((f) => f.key === key);
    if (!found) throw new Error(`fake hub: no fixture file ${file}`);
    return found;
  };

  return {
    url,
    token,
    requests,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    cutAfter(file, bytes) {
      controls.cut.set(findKey(file), bytes);
    },
    wrongSha(file, wrong = true) {
      if (wrong) controls.wrong.add(findKey(file));
      else controls.wrong.delete(findKey(file));
    },
    slow(file, bytesPerSecond) {
      if (bytesPerSecond === undefined || bytesPerSecond <= 0) controls.slow.delete(findKey(file));
      else controls.slow.set(findKey(file), bytesPerSecond);
    },
    fail(file, status, { times = Number.POSITIVE_INFINITY } = {}) {
      controls.fail.set(findKey(file), { status, times });
    },
    failApi(status, { times = Number.POSITIVE_INFINITY } = {}) {
      controls.api = { status, times };
    },
    reset() {
      controls.cut.clear();
      controls.wrong.clear();
      controls.slow.clear();
      controls.fail.clear();
      controls.api = undefined;
      requests.length = 0;
    },
    sha256(file) {
      return storedFile(file).sha256;
    },
    requestsFor(file) {
      const key = findKey(file);
      return requests.filter((request) => request.file === key);
    },
    ranges(file) {
      const stored = storedFile(file);
      return requests
        .filter(
          (request) =>
            request.file === stored.key &&
            request.method === 'GET' &&
            (request.kind === 'cdn' || (request.kind === 'resolve' && !stored.lfs)) &&
            request.status !== 0 &&
            request.status < 300,
        )
        .map((request) => request.range);
    },
  };
}

interface Context {
  req: IncomingMessage;
  res: ServerResponse;
  record: FakeHubRequest;
  repos: Map<string, StoredRepo>;
  controls: Controls;
  token: string;
  treePageSize: number;
}

async function handle(context: Context): Promise<void> {
  const { req, record } = context;
  const url = new URL(req.url ?? '/', 'http://fake-hub');
  if (req.method === 'OPTIONS') {
    record.kind = 'preflight';
    send(context, 204, {
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
      'Access-Control-Allow-Headers':
        req.headers['access-control-request-headers'] ?? 'Authorization, Range, Accept',
      'Access-Control-Max-Age': '86400',
    });
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendJson(context, 405, { error: `Method ${req.method ?? ''} not allowed` });
    return;
  }
  let segments: string[];
  try {
    segments = url.pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    sendJson(context, 400, { error: 'Malformed path' });
    return;
  }
  // Any request with a token the hub does not know is refused, as the real hub does.
  const authorization = req.headers.authorization;
  if (authorization !== undefined && authorization !== `Bearer ${context.token}`) {
    sendError(context, 401, undefined, 'Invalid credentials in Authorization header');
    return;
  }

  if (segments[0] === 'api' && segments[1] === 'models') {
    const failure = context.controls.api;
    if (failure !== undefined && failure.times > 0) {
      failure.times -= 1;
      record.kind =
        segments.length <= 3 ? 'search' : segments[4] === 'tree' ? 'tree' : 'model-info';
      if (failure.status === 429) {
        context.res.setHeader('Retry-After', '30');
        sendError(context, 429, undefined, 'You have exceeded our rate limit. Retry later.');
      } else {
        sendError(context, failure.status, undefined, `Fake failure of ${url.pathname}`);
      }
      return;
    }
    if (segments.length === 2 || (segments.length === 3 && segments[2] === '')) {
      record.kind = 'search';
      search(context, url);
      return;
    }
    const id = `${segments[2]}/${segments[3]}`;
    if (segments[4] === 'tree' && segments.length >= 6) {
      record.kind = 'tree';
      const repo = findRepo(context, id);
      if (repo && checkAccess(context, repo, 'api') && checkRevision(context, repo, segments[5])) {
        tree(context, repo, url, segments.slice(6).join('/'));
      }
      return;
    }
    if (segments.length === 4 || (segments[4] === 'revision' && segments.length === 6)) {
      record.kind = 'model-info';
      const repo = findRepo(context, id);
      if (repo && checkAccess(context, repo, 'api') && checkRevision(context, repo, segments[5])) {
        sendJson(context, 200, modelInfo(repo));
      }
      return;
    }
  }
  if (segments[0] === 'cdn' && segments.length >= 4) {
    record.kind = 'cdn';
    const repo = context.repos.get((segments[1] ?? '').toLowerCase());
    const file = repo?.files.find((f) => f.path === segments.slice(3).join('/'));
    if (!file || file.sha256 !== segments[2]) {
      sendText(context, 404, 'NoSuchKey');
      return;
    }
    record.file = file.key;
    if (takeFailure(context, file)) return;
    await sendBytes(context, file);
    return;
  }
  if ((segments[2] === 'resolve' || segments[2] === 'raw') && segments.length >= 5) {
    record.kind = segments[2];
    const repo = findRepo(context, `${segments[0]}/${segments[1]}`);
    if (
      !repo ||
      !checkAccess(context, repo, 'file') ||
      !checkRevision(context, repo, segments[3])
    ) {
      return;
    }
    const path = segments.slice(4).join('/');
    const file = repo.files.find((f) => f.path === path);
    if (!file) {
      sendError(context, 404, 'EntryNotFound', `Entry not found: ${path}`);
      return;
    }
    record.file = file.key;
    if (takeFailure(context, file)) return;
    if (segments[2] === 'raw') {
      if (file.lfs) sendText(context, 200, pointer(file, advertisedSha(context, file)));
      else await sendBytes(context, file);
      return;
    }
    if (!file.lfs) {
      await sendBytes(context, file);
      return;
    }
    const sha = advertisedSha(context, file);
    const pathPart = file.path.split('/').map(encodeURIComponent).join('/');
    const host = context.req.headers.host ?? 'localhost';
    send(
      context,
      302,
      {
        Location: `http://${host}/cdn/${encodeURIComponent(repo.id)}/${file.sha256}/${pathPart}`,
        'X-Linked-Etag': `"${sha}"`,
        'X-Linked-Size': String(file.size),
        'X-Repo-Commit': repo.sha,
        ETag: `"${gitBlobOid(pointer(file, sha))}"`,
        'Content-Type': 'text/plain; charset=utf-8',
      },
      `Found. Redirecting to CDN`,
    );
    return;
  }
  sendJson(context, 404, { error: 'Not found' });
}

function search(context: Context, url: URL): void {
  const params = url.searchParams;
  const expand = [...params.getAll('expand'), ...params.getAll('expand[]')];
  const unknown = expand.find((field) => !expandable.has(field));
  if (unknown !== undefined) {
    sendJson(context, 400, { error: `"expand" contains an invalid value: ${unknown}` });
    return;
  }
  const query = (params.get('search') ?? '').toLowerCase();
  const filters = params.getAll('filter').flatMap((filter) => filter.split(','));
  const author = params.get('author');
  const authorized = context.req.headers.authorization !== undefined;
  let found = [...context.repos.values()].filter(
    (repo) =>
      (authorized || repo.spec.private !== true) &&
      repo.id.toLowerCase().includes(query) &&
      (author === null || repo.id.split('/')[0] === author) &&
      filters.every((filter) => tagsOf(repo).includes(filter)),
  );
  const sort = params.get('sort');
  if (sort !== null) {
    const direction = params.get('direction') === '1' ? 1 : -1;
    const value = (repo: StoredRepo): number | string => {
      const info = modelInfo(repo);
      const field = info[sort === 'id' ? 'id' : sort];
      return typeof field === 'number' || typeof field === 'string' ? field : 0;
    };
    found = found.sort((a, b) => {
      const x = value(a);
      const y = value(b);
      return (x < y ? -1 : x > y ? 1 : 0) * direction;
    });
  }
  const limit = Number(params.get('limit') ?? '1000');
  const answer = found.slice(0, Number.isFinite(limit) && limit > 0 ? limit : 1000).map((repo) => {
    const info = modelInfo(repo);
    // Without expand the hub answers a fixed short list; with it, exactly the fields named.
    const fields =
      expand.length > 0
        ? expand
        : [
            'likes',
            'private',
            'downloads',
            'tags',
            'pipeline_tag',
            'library_name',
            'createdAt',
            'modelId',
          ];
    const entry: Record<string, unknown> = { _id: info._id, id: info.id };
    for (const field of fields) entry[field] = info[field];
    return entry;
  });
  sendJson(context, 200, answer);
}

function tree(context: Context, repo: StoredRepo, url: URL, folder: string): void {
  const recursive = url.searchParams.get('recursive') === 'true';
  const prefix = folder === '' ? '' : `${folder.replace(/\/$/, '')}/`;
  const entries: Record<string, unknown>[] = [];
  const folders = new Set<string>();
  for (const file of repo.files) {
    const parts = file.path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  if (prefix !== '' && !folders.has(prefix.slice(0, -1))) {
    sendError(context, 404, 'EntryNotFound', `Entry not found: ${folder}`);
    return;
  }
  const inScope = (path: string) =>
    path.startsWith(prefix) && (recursive || !path.slice(prefix.length).includes('/'));
  for (const path of [...folders].sort()) {
    if (inScope(path)) {
      entries.push({ type: 'directory', oid: sha1Hex(`tree ${repo.id}/${path}`), size: 0, path });
    }
  }
  for (const file of [...repo.files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    if (!inScope(file.path)) continue;
    if (file.lfs) {
      const text = pointer(file, advertisedSha(context, file));
      entries.push({
        type: 'file',
        oid: gitBlobOid(text),
        size: file.size,
        path: file.path,
        lfs: {
          oid: advertisedSha(context, file),
          size: file.size,
          pointerSize: Buffer.byteLength(text),
        },
      });
    } else {
      entries.push({ type: 'file', oid: file.gitOid, size: file.size, path: file.path });
    }
  }
  const cursor = Number(Buffer.from(url.searchParams.get('cursor') ?? '', 'base64url').toString());
  const start = Number.isInteger(cursor) && cursor > 0 ? cursor : 0;
  const page = entries.slice(start, start + context.treePageSize);
  const headers: Record<string, string> = {};
  if (start + context.treePageSize < entries.length) {
    const next = new URL(url.pathname, `http://${context.req.headers.host ?? 'localhost'}`);
    for (const [name, value] of url.searchParams)
      if (name !== 'cursor') next.searchParams.append(name, value);
    next.searchParams.set(
      'cursor',
      Buffer.from(String(start + context.treePageSize)).toString('base64url'),
    );
    headers.Link = `<${next.href}>; rel="next"`;
  }
  sendJson(context, 200, page, headers);
}

function modelInfo(repo: StoredRepo): Record<string, unknown> {
  const { spec } = repo;
  return {
    _id: sha1Hex(`id ${repo.id}`).slice(0, 24),
    id: repo.id,
    modelId: repo.id,
    author: repo.id.split('/')[0],
    sha: repo.sha,
    lastModified: spec.lastModified ?? defaultDate,
    createdAt: defaultDate,
    private: spec.private === true,
    gated: spec.gated === true ? 'auto' : false,
    disabled: false,
    downloads: spec.downloads ?? 0,
    likes: spec.likes ?? 0,
    tags: tagsOf(repo),
    pipeline_tag: spec.pipelineTag ?? 'text-generation',
    library_name: 'gguf',
    siblings: repo.files.map((file) => ({ rfilename: file.path })),
    ...(spec.gguf === undefined ? {} : { gguf: spec.gguf }),
    spaces: [],
    usedStorage: repo.files.reduce((sum, file) => sum + file.size, 0),
  };
}

function findRepo(context: Context, id: string): StoredRepo | undefined {
  const repo = context.repos.get(id.toLowerCase());
  if (repo === undefined) {
    sendError(context, 404, 'RepoNotFound', 'Repository not found');
  }
  return repo;
}

function checkAccess(context: Context, repo: StoredRepo, what: 'api' | 'file'): boolean {
  if (context.req.headers.authorization !== undefined) return true; // checked against the token
  if (repo.spec.private === true) {
    sendError(context, 401, 'RepoNotFound', 'Repository not found');
    return false;
  }
  if (repo.spec.gated === true && what === 'file') {
    sendError(
      context,
      401,
      'GatedRepo',
      `Access to model ${repo.id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
    );
    return false;
  }
  return true;
}

function checkRevision(context: Context, repo: StoredRepo, revision: string | undefined): boolean {
  if (
    revision === undefined ||
    revision === 'main' ||
    revision === 'HEAD' ||
    revision === repo.sha
  ) {
    return true;
  }
  sendError(context, 404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
  return false;
}

function takeFailure(context: Context, file: StoredFile): boolean {
  const failure = context.controls.fail.get(file.key);
  if (failure === undefined || failure.times <= 0) return false;
  failure.times -= 1;
  const code =
    failure.status === 404
      ? 'EntryNotFound'
      : failure.status === 401 || failure.status === 403
        ? 'GatedRepo'
        : undefined;
  sendError(context, failure.status, code, `Fake failure of ${file.path}`);
  return true;
}

async function sendBytes(context: Context, file: StoredFile): Promise<void> {
  const { req, res, controls } = context;
  const etag = `"${file.sha256}"`;
  const baseHeaders: Record<string, string> = {
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `inline; filename*=UTF-8''${encodeURIComponent(file.path.split('/').at(-1) ?? '')}`,
    'Last-Modified': new Date(file.repo.spec.lastModified ?? defaultDate).toUTCString(),
  };
  const ifRange = req.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? req.headers.range : undefined;
  const wanted = parseRange(range, file.size);
  if (wanted === 'unsatisfiable') {
    send(context, 416, { ...baseHeaders, 'Content-Range': `bytes */${file.size}` });
    return;
  }
  const [start, end] = wanted ?? [0, file.size - 1];
  const length = Math.max(0, end - start + 1);
  const headers: Record<string, string> = { ...baseHeaders, 'Content-Length': String(length) };
  if (wanted !== undefined) headers['Content-Range'] = `bytes ${start}-${end}/${file.size}`;
  context.record.status = wanted === undefined ? 200 : 206;
  res.writeHead(context.record.status, { ...corsHeaders, ...headers });
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return;
  }

  const cut = controls.cut.get(file.key);
  controls.cut.delete(file.key);
  const rate = controls.slow.get(file.key);
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  if (cut !== undefined && cut <= 0) {
    res.flushHeaders();
    cutConnection(res);
    return;
  }
  let sent = 0;
  for await (const chunk of readChunks(file, start, end)) {
    let rest = chunk;
    while (rest.length > 0) {
      if (closed) return;
      let take = rest.length;
      if (rate !== undefined) take = Math.min(take, Math.max(1, Math.floor(rate / 20)));
      if (cut !== undefined) take = Math.min(take, cut - sent);
      await write(res, rest.subarray(0, take));
      sent += take;
      rest = rest.subarray(take);
      if (cut !== undefined && sent >= cut) {
        cutConnection(res);
        return;
      }
      if (rate !== undefined) await sleep((take / rate) * 1000);
    }
  }
  res.end();
}

function parseRange(
  header: string | undefined,
  size: number,
): [number, number] | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  // One range only; anything else is ignored and the whole file sent, as RFC 9110 allows.
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return [start, end];
}

async function* readChunks(
  file: StoredFile,
  start: number,
  end: number,
): AsyncGenerator<Uint8Array> {
  if (file.bytes !== undefined) {
    for (let offset = start; offset <= end; offset += chunkSize) {
      yield file.bytes.subarray(offset, Math.min(end + 1, offset + chunkSize));
    }
    return;
  }
  const stream = createReadStream(file.diskPath ?? '', { start, end, highWaterMark: chunkSize });
  for await (const chunk of stream) yield chunk as Buffer;
}

function write(res: ServerResponse, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) {
      resolve();
      return;
    }
    const done = () => {
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    res.write(chunk, done);
  });
}

function cutConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  // End after the bytes already written have gone out, then make sure the socket is gone.
  socket.end(() => socket.destroy());
}

function send(
  context: Context,
  status: number,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): void {
  context.record.status = status;
  const payload =
    body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  context.res.writeHead(status, {
    ...corsHeaders,
    ...headers,
    ...(payload === undefined ? {} : { 'Content-Length': String(payload.length) }),
  });
  context.res.end(context.req.method === 'HEAD' ? undefined : payload);
}

function sendJson(
  context: Context,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  send(
    context,
    status,
    { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    JSON.stringify(value),
  );
}

function sendText(context: Context, status: number, text: string): void {
  send(context, status, { 'Content-Type': 'text/plain; charset=utf-8' }, text);
}

function sendError(
  context: Context,
  status: number,
  code: string | undefined,
  message: string,
): void {
  const headers: Record<string, string> = { 'X-Error-Message': message };
  if (code !== undefined) headers['X-Error-Code'] = code;
  sendJson(context, status, { error: message }, headers);
}

function advertisedSha(context: Context, file: StoredFile): string {
  return context.controls.wrong.has(file.key)
    ? createHash('sha256').update(`wrong ${file.sha256}`).digest('hex')
    : file.sha256;
}

function pointer(file: StoredFile, sha256: string): string {
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${file.size}\n`;
}

function tagsOf(repo: StoredRepo): string[] {
  return repo.spec.tags ?? ['gguf'];
}

async function storeRepo(spec: FakeHubRepo): Promise<StoredRepo> {
  const repo: StoredRepo = { spec, id: spec.id, sha: spec.sha ?? '', files: [] };
  for (const file of spec.files) {
    const key = `${spec.id}/${file.path}`;
    if ('bytes' in file) {
      repo.files.push({
        key,
        repo,
        path: file.path,
        size: file.bytes.length,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        gitOid: gitBlobOid(file.bytes),
        lfs: file.lfs ?? isLfsByDefault(file.path, file.bytes.length),
        bytes: file.bytes,
      });
    } else {
      const { size } = await stat(file.file);
      const lfs = file.lfs ?? isLfsByDefault(file.path, size);
      // Hash only what the listing needs: the sha256 of LFS files, the git oid of the rest.
      const sha256 = file.sha256 ?? (await hashFile(file.file, 'sha256'));
      const gitOid = lfs ? '' : await hashFile(file.file, 'sha1', `blob ${size}\0`);
      repo.files.push({
        key,
        repo,
        path: file.path,
        size,
        sha256,
        gitOid,
        lfs,
        diskPath: file.file,
      });
    }
  }
  repo.sha = spec.sha ?? sha1Hex(`commit ${spec.id} ${repo.files.map((f) => f.sha256).join(' ')}`);
  return repo;
}

function isLfsByDefault(path: string, size: number): boolean {
  return path.toLowerCase().endsWith('.gguf') || size >= 10 * 1024 * 1024;
}

async function hashFile(path: string, algorithm: string, prefix = ''): Promise<string> {
  const hash = createHash(algorithm).update(prefix);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function gitBlobOid(content: string | Uint8Array): string {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function sha1Hex(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
