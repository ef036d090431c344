import { z } from 'zod';
import '../zod-jitless.js';
import { LmtabError } from '../errors/index.js';
import { describeText, networkError, statusError, type RequestContext } from './hub-errors.js';
import { assertRepoId } from './repo-id.js';

/** Search results a hub search returns unless told otherwise. */
export const defaultSearchLimit = 20;

/** The hub lmtab talks to unless told otherwise. */
export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';

/** Options of {@link createHubClient}. */
export interface HubClientOptions {
  /**
   * Base URL of the hub, optionally with a path prefix (a mirror or proxy); default
   * `https://huggingface.co`. Node passes `process.env.HF_ENDPOINT`, the GUI its setting; a blank
   * value counts as unset.
   */
  endpoint?: string;
  /** Access token (`hf_...`) sent as `Authorization: Bearer`; needed for gated and private repos. */
  token?: string;
  /** The `fetch` to use (tests, proxies); default the global `fetch`. */
  fetch?: typeof fetch;
}

/** Options of {@link HubClient.search}. */
export interface HubSearchOptions {
  /** Most results to return, 1 to 1000; default {@link defaultSearchLimit}. */
  limit?: number;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** Options of {@link HubClient.modelInfo}. */
export interface HubModelInfoOptions {
  /** Branch, tag or commit; default the repository's default branch. */
  revision?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** Options of {@link HubClient.listFiles}. */
export interface HubListFilesOptions {
  /** Branch, tag or commit; default `main`. */
  revision?: string;
  /** Aborts the requests (the listing may take several pages). */
  signal?: AbortSignal;
}

/** One search result. */
export interface HubModelSummary {
  /** Repository id `ORG/REPO`, in the hub's spelling. */
  id: string;
  /** Downloads over the last 30 days. */
  downloads: number;
  likes: number;
  tags: string[];
  /** ISO 8601 time of the last commit, when the hub sent it. */
  lastModified?: string;
  /** The hub's task tag, e.g. `text-generation` or `image-text-to-text`. */
  pipelineTag?: string;
  /** Whether downloads need an accepted access request and a token. */
  gated: boolean;
}

/** What the hub's model card metadata says about a GGUF repository. */
export interface HubGgufSummary {
  /** Parameter count. */
  total?: number;
  architecture?: string;
  /** Training context length in tokens. */
  contextLength?: number;
  chatTemplate?: string;
}

/** A repository's details. */
export interface HubModelInfo {
  /** Repository id `ORG/REPO`, in the hub's spelling (use it for canonical names). */
  id: string;
  /** Commit the answer describes. */
  sha?: string;
  tags: string[];
  pipelineTag?: string;
  gated: boolean;
  private: boolean;
  downloads: number;
  likes: number;
  /** ISO 8601 time of the last commit. */
  lastModified?: string;
  /** Every file path in the repository (no sizes: use {@link HubClient.listFiles} for those). */
  files: string[];
  /** Present on repositories the hub recognised as GGUF. */
  gguf?: HubGgufSummary;
}

/** One file of a repository listing. */
export interface HubFile {
  /** Path inside the repository, `/`-separated. */
  path: string;
  /** Size in bytes of the real content (not of an LFS pointer). */
  size: number;
  /** Lower-case hex sha256 of the content, for LFS files (every GGUF); undefined otherwise. */
  sha256?: string;
}

/** Read-only access to the Hugging Face hub API subset lmtab uses. */
export interface HubClient {
  /** The endpoint in use, without a trailing slash. */
  readonly endpoint: string;
  /** GGUF repositories matching `query` (all of them when blank), most downloaded first. */
  search(query: string, options?: HubSearchOptions): Promise<HubModelSummary[]>;
  /** A repository's details; `model_not_found`, `unauthorized` or `download_failed` otherwise. */
  modelInfo(repo: string, options?: HubModelInfoOptions): Promise<HubModelInfo>;
  /** Every file of a repository at a revision, with sizes and sha256, following pagination. */
  listFiles(repo: string, options?: HubListFilesOptions): Promise<HubFile[]>;
  /**
   * The repository's model card (`README.md`) as text, at most {@link modelCardLimit} characters;
   * undefined when the repository has none.
   */
  modelCard(repo: string, options?: HubModelInfoOptions): Promise<string | undefined>;
  /** The `resolve` URL of a file: a redirect to the CDN that answers byte ranges. */
  fileUrl(repo: string, path: string, revision?: string): string;
  /** Headers a download of {@link HubClient.fileUrl} needs (`Authorization` when a token is set). */
  headers(): Record<string, string>;
}

const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const gatedSchema = lenient(z.union([z.boolean(), z.string()]));

const summarySchema = z.object({
  id: z.string(),
  downloads: lenient(z.number()),
  likes: lenient(z.number()),
  tags: lenient(z.array(z.string())),
  lastModified: lenient(z.string()),
  pipeline_tag: lenient(z.string()),
  gated: gatedSchema,
});

const infoSchema = z.object({
  id: z.string(),
  sha: lenient(z.string()),
  tags: lenient(z.array(z.string())),
  pipeline_tag: lenient(z.string()),
  gated: gatedSchema,
  private: lenient(z.boolean()),
  downloads: lenient(z.number()),
  likes: lenient(z.number()),
  lastModified: lenient(z.string()),
  siblings: lenient(z.array(z.object({ rfilename: z.string() }))),
  gguf: lenient(
    z.object({
      total: lenient(z.number()),
      architecture: lenient(z.string()),
      context_length: lenient(z.number()),
      chat_template: lenient(z.string()),
    }),
  ),
});

const treeSchema = z.array(
  z.object({
    type: z.string(),
    path: z.string(),
    size: z.number(),
    lfs: lenient(z.object({ oid: z.string(), size: z.number() })),
  }),
);

const sha256Hex = /^[0-9a-f]{64}$/;

/** Characters of a model card read at most (cards are a few kB; some embed whole papers). */
export const modelCardLimit = 200_000;

/** Creates a hub client; nothing is fetched until a method is called. */
export function createHubClient(options: HubClientOptions = {}): HubClient {
  const endpoint = normalizeEndpoint(options.endpoint);
  const token = options.token?.trim() ? options.token.trim() : undefined;
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const authHeaders = (): Record<string, string> =>
    token === undefined ? {} : { Authorization: `Bearer ${token}` };

  async function getJson(url: string, about: RequestContext, signal?: AbortSignal) {
    let response: Response;
    try {
      response = await fetchImpl(url, {
        headers: { Accept: 'application/json', ...authHeaders() },
        signal,
      });
    } catch (error) {
      throw networkError(error, url, endpoint, signal);
    }
    if (!response.ok) throw await statusError(response, url, about, endpoint, token);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw networkError(error, url, endpoint, signal);
    }
    try {
      return { body: JSON.parse(text) as unknown, response };
    } catch (error) {
      throw new LmtabError(
        'download_failed',
        `Expected JSON from GET ${url}, got ${describeText(text)}.`,
        { cause: error },
      );
    }
  }

  return {
    endpoint,

    async search(query, { limit = defaultSearchLimit, signal } = {}) {
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new LmtabError(
          'invalid_request',
          `Expected a search limit from 1 to 1000, got ${String(limit)}.`,
          { param: 'limit' },
        );
      }
      const params = new URLSearchParams();
      if (query.trim() !== '') params.set('search', query.trim());
      params.set('filter', 'gguf');
      params.set('sort', 'downloads');
      params.set('direction', '-1');
      params.set('limit', String(limit));
      // The list answer leaves out lastModified and gated unless asked for; asking for any field
      // means naming every field wanted.
      for (const field of ['downloads', 'likes', 'tags', 'pipeline_tag', 'lastModified', 'gated']) {
        params.append('expand', field);
      }
      const url = `${endpoint}/api/models?${params}`;
      const { body } = await getJson(url, {}, signal);
      const parsed = parseWire(z.array(summarySchema), body, 'a JSON array of models', url);
      return parsed.map((entry) => ({
        id: entry.id,
        downloads: entry.downloads ?? 0,
        likes: entry.likes ?? 0,
        tags: entry.tags ?? [],
        lastModified: entry.lastModified,
        pipelineTag: entry.pipeline_tag,
        gated: isGated(entry.gated),
      }));
    },

    async modelInfo(repo, { revision, signal } = {}) {
      assertRepoId(repo);
      const suffix = revision === undefined ? '' : `/revision/${encodeURIComponent(revision)}`;
      const url = `${endpoint}/api/models/${repo}${suffix}`;
      const { body } = await getJson(url, { repo, revision }, signal);
      const info = parseWire(infoSchema, body, 'a model description', url);
      return {
        id: info.id,
        sha: info.sha,
        tags: info.tags ?? [],
        pipelineTag: info.pipeline_tag,
        gated: isGated(info.gated),
        private: info.private ?? false,
        downloads: info.downloads ?? 0,
        likes: info.likes ?? 0,
        lastModified: info.lastModified,
        files: (info.siblings ?? []).map((sibling) => sibling.rfilename),
        gguf:
          info.gguf === undefined
            ? undefined
            : {
                total: info.gguf.total,
                architecture: info.gguf.architecture,
                contextLength: info.gguf.context_length,
                chatTemplate: info.gguf.chat_template,
              },
      };
    },

    async listFiles(repo, { revision = 'main', signal } = {}) {
      assertRepoId(repo);
      const files: HubFile[] = [];
      const seen = new Set<string>();
      let url: string | undefined =
        `${endpoint}/api/models/${repo}/tree/${encodeURIComponent(revision)}?recursive=true`;
      while (url !== undefined && !seen.has(url)) {
        seen.add(url);
        const page: { body: unknown; response: Response } = await getJson(
          url,
          { repo, revision },
          signal,
        );
        const entries = parseWire(treeSchema, page.body, 'a JSON array of tree entries', url);
        for (const entry of entries) {
          if (entry.type !== 'file') continue;
          const file: HubFile = { path: entry.path, size: entry.lfs?.size ?? entry.size };
          const sha256 = entry.lfs?.oid.toLowerCase();
          if (sha256 !== undefined && sha256Hex.test(sha256)) file.sha256 = sha256;
          files.push(file);
        }
        url = nextPage(page.response.headers.get('Link'), url, endpoint);
      }
      return files;
    },

    async modelCard(repo, { revision = 'main', signal } = {}) {
      const url = this.fileUrl(repo, 'README.md', revision);
      let response: Response;
      try {
        response = await fetchImpl(url, { headers: authHeaders(), signal });
      } catch (error) {
        throw networkError(error, url, endpoint, signal);
      }
      // A repository without a card answers 404 EntryNotFound: not an error of the repository.
      if (response.status === 404 && response.headers.get('X-Error-Code') === 'EntryNotFound') {
        return undefined;
      }
      if (!response.ok) throw await statusError(response, url, { repo, revision }, endpoint, token);
      try {
        return (await response.text()).slice(0, modelCardLimit);
      } catch (error) {
        throw networkError(error, url, endpoint, signal);
      }
    },

    fileUrl(repo, path, revision = 'main') {
      assertRepoId(repo);
      const encodedPath = path.split('/').map(encodeURIComponent).join('/');
      return `${endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${encodedPath}`;
    },

    headers: authHeaders,
  };
}

function normalizeEndpoint(value: string | undefined): string {
  // An exported-but-empty HF_ENDPOINT is a common shell slip; it means "no override".
  const raw = value === undefined || value.trim() === '' ? DEFAULT_HUB_ENDPOINT : value.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LmtabError(
      'invalid_request',
      `Expected the hub endpoint to be an http(s) URL like ${DEFAULT_HUB_ENDPOINT}, got ${JSON.stringify(raw)}.`,
    );
  }
  return raw.replace(/\/+$/, '');
}

function isGated(value: boolean | string | undefined): boolean {
  // The hub says false, "auto" or "manual".
  return value !== undefined && value !== false && value !== 'false';
}

function parseWire<T extends z.ZodType>(
  schema: T,
  body: unknown,
  expected: string,
  url: string,
): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new LmtabError(
    'download_failed',
    `Expected ${expected} from GET ${url}, got an answer that does not fit${where}: ${issue?.message ?? 'unknown shape'}.`,
    { cause: result.error },
  );
}

function nextPage(link: string | null, current: string, endpoint: string): string | undefined {
  if (link === null) return undefined;
  const match = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(link);
  if (!match?.[1]) return undefined;
  const next = new URL(match[1], current);
  // The token goes along with every page: follow only links back to the hub itself.
  return next.origin === new URL(endpoint).origin ? next.href : undefined;
}
