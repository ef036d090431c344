// The API's routes as data, apart from their handlers, so that the relay, the cloud gateway, the
// service worker and the relay log read them without loading a handler: a new protocol is one
// folder under src/api, its rows here, and its handlers in routes.ts.
import { anthropicTokens } from '../anthropic/anthropic-tokens.js';
import { ollamaTokens } from '../ollama/ollama-tokens.js';
import { openAiTokens } from '../openai/openai-tokens.js';
import { responsesTokens } from '../responses/responses-tokens.js';
import type { TokenReader } from '../pipeline/token-reader.js';

/**
 * The path prefixes the API answers under; everything else is the app. The others are
 * llama-server's bare routes: rerank, its token routes and its server properties.
 */
export const apiPrefixes = [
  '/v1',
  '/api',
  '/rerank',
  '/reranking',
  '/tokenize',
  '/detokenize',
  '/apply-template',
  '/props',
] as const;

/** Who may call a route on a cloud app: `api` keys infer and read, `admin` keys change models. */
export type RouteScope = 'api' | 'admin';

/** One route as data: its method and path, the protocol that answers it, the scope it needs. */
export interface RouteRow {
  /** A GET route also answers HEAD (without the body) unless a HEAD route of the same path exists. */
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  /** Exact path, or a prefix ending in `{id}` that captures the rest of the path (slashes too). */
  path: string;
  /** Whose shapes its answers have; the relay log reads their token counts by it. */
  protocol: keyof typeof protocolTokens;
  scope: RouteScope;
}

/** How each protocol's answers state their token counts (its folder's reader). */
const protocolTokens = {
  openai: openAiTokens,
  responses: responsesTokens,
  anthropic: anthropicTokens,
  ollama: ollamaTokens,
} as const satisfies Record<string, TokenReader>;

/** Every route of the API; routes.ts gives each its handler. */
export const routeTable = [
  { method: 'POST', path: '/v1/chat/completions', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/v1/completions', protocol: 'openai', scope: 'api' },
  { method: 'GET', path: '/v1/models', protocol: 'openai', scope: 'api' },
  { method: 'GET', path: '/v1/models/{id}', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/v1/responses', protocol: 'responses', scope: 'api' },
  { method: 'GET', path: '/v1/responses/{id}', protocol: 'responses', scope: 'api' },
  { method: 'DELETE', path: '/v1/responses/{id}', protocol: 'responses', scope: 'api' },
  { method: 'POST', path: '/v1/messages', protocol: 'anthropic', scope: 'api' },
  { method: 'POST', path: '/v1/messages/count_tokens', protocol: 'anthropic', scope: 'api' },
  { method: 'POST', path: '/api/generate', protocol: 'ollama', scope: 'api' },
  { method: 'POST', path: '/api/chat', protocol: 'ollama', scope: 'api' },
  { method: 'GET', path: '/api/tags', protocol: 'ollama', scope: 'api' },
  { method: 'POST', path: '/api/show', protocol: 'ollama', scope: 'api' },
  { method: 'DELETE', path: '/api/delete', protocol: 'ollama', scope: 'admin' },
  { method: 'POST', path: '/api/pull', protocol: 'ollama', scope: 'admin' },
  { method: 'POST', path: '/api/create', protocol: 'ollama', scope: 'admin' },
  { method: 'POST', path: '/api/copy', protocol: 'ollama', scope: 'admin' },
  { method: 'HEAD', path: '/api/blobs/{id}', protocol: 'ollama', scope: 'admin' },
  { method: 'POST', path: '/api/blobs/{id}', protocol: 'ollama', scope: 'admin' },
  { method: 'GET', path: '/api/ps', protocol: 'ollama', scope: 'api' },
  { method: 'GET', path: '/api/version', protocol: 'ollama', scope: 'api' },
  { method: 'GET', path: '/api/lmtab/engine', protocol: 'ollama', scope: 'api' },
  { method: 'POST', path: '/v1/embeddings', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/v1/audio/transcriptions', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/v1/audio/speech', protocol: 'openai', scope: 'api' },
  // OpenAI's Realtime session: the relay's WebSocket (and the page's client) carry it as NDJSON.
  { method: 'POST', path: '/v1/realtime', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/api/embed', protocol: 'ollama', scope: 'api' },
  { method: 'POST', path: '/api/embeddings', protocol: 'ollama', scope: 'api' },
  // llama-server's rerank routes (its request and answer are Cohere's and Jina's shapes).
  { method: 'POST', path: '/v1/rerank', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/v1/reranking', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/rerank', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/reranking', protocol: 'openai', scope: 'api' },
  // llama-server's token routes (its errors are OpenAI's shape).
  { method: 'POST', path: '/tokenize', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/detokenize', protocol: 'openai', scope: 'api' },
  { method: 'POST', path: '/apply-template', protocol: 'openai', scope: 'api' },
  { method: 'GET', path: '/props', protocol: 'openai', scope: 'api' },
] as const satisfies readonly RouteRow[];

type TableRow = (typeof routeTable)[number];

/** A route's key in the handler table: `METHOD /path`. */
export type RouteKey = TableRow extends infer Row
  ? Row extends { method: infer M extends string; path: infer P extends string }
    ? `${M} ${P}`
    : never
  : never;

/** Path parameters of a path matched against a row's pattern, or undefined when it does not match. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  if (!pattern.endsWith('{id}')) return pattern === pathname ? {} : undefined;
  const prefix = pattern.slice(0, -'{id}'.length);
  if (!pathname.startsWith(prefix) || pathname.length === prefix.length) return undefined;
  const raw = pathname.slice(prefix.length);
  try {
    return { id: decodeURIComponent(raw) };
  } catch {
    return { id: raw };
  }
}

const rowsAt = (pathname: string): RouteRow[] =>
  routeTable.filter((row) => matchPath(row.path, pathname.split('?')[0] ?? '') !== undefined);

/** Paths the engine answers: the API's prefixes, known routes or not. */
export function isApiPath(pathname: string): boolean {
  return apiPrefixes.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/** The scope a path needs (query ignored): `admin` when a route there changes models. */
export function routeScope(path: string): RouteScope {
  return rowsAt(path).some((row) => row.scope === 'admin') ? 'admin' : 'api';
}

/** Reads any protocol's token counts: for answers whose route is not known. */
const anyProtocolTokens: TokenReader = {
  reported: (value) =>
    Object.values(protocolTokens)
      .map((reader) => reader.reported(value))
      .find((count) => count !== undefined),
  carriesText: (value) => Object.values(protocolTokens).some((r) => r.carriesText(value)),
};

/** How the answers of a path state their token counts: its route's protocol's reader. */
export function tokenReaderFor(path?: string): TokenReader {
  const protocol = path === undefined ? undefined : rowsAt(path)[0]?.protocol;
  return protocol === undefined ? anyProtocolTokens : protocolTokens[protocol];
}
