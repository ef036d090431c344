import { LmtabError, toLmtabError } from '../../errors/index.js';
import type { Engine } from '../../engine/index.js';
import { createMemoryResponseStore } from '../../store/index.js';
import type { ModelStore, ResponseStore } from '../../store/index.js';
import { defaultMaxBlobBytes, defaultMaxBodyBytes } from '../body/default-limits.js';
import { limitImageFetch, type ImageFetchLimits } from '../media/limit-image-fetch.js';
import { createProjectorUploads } from '../ollama/blobs/projector-uploads.js';
import { errorsForPath } from './protocol-errors.js';
import type { HubAccess, RouteContext } from '../pipeline/route-context.js';
import type { Route } from './routes.js';
import { matchPath } from './route-table.js';
import { routes } from './routes.js';

/** Options of {@link createRouter}. */
export interface RouterOptions {
  /** Runs the generations. */
  engine: Engine;
  /** Where the models are. */
  store: ModelStore;
  /** Where `/v1/responses` keeps stored answers; default an in-memory store of this router. */
  responses?: ResponseStore;
  /** Hub access for `/api/pull`; without it pulling answers 501. */
  hub?: HubAccess;
  /** Epoch milliseconds now (for `created`, `created_at`); default `Date.now`. */
  clock?: () => number;
  /** Largest request body, and largest image, in bytes; default {@link defaultMaxBodyBytes}. */
  maxBodyBytes?: number;
  /** Largest model file uploaded to `/api/blobs`, in bytes; default {@link defaultMaxBlobBytes}. */
  maxBlobBytes?: number;
  /** Fetches images given by http(s) URL; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Time limits of image fetches; default {@link defaultImageFetchLimits}. */
  imageFetchLimits?: ImageFetchLimits;
  /** lmtab's version, answered by `/api/version`. */
  version: string;
}

/** Options of {@link Router.handle}. */
export interface RouterHandleOptions {
  /** Aborted when the client goes away; stops the generation. */
  signal?: AbortSignal;
}

/**
 * The API of lmtab: OpenAI `/v1` (chat, completions, responses), Anthropic `/v1/messages` and
 * Ollama `/api`, over web-standard Request and Response.
 */
export interface Router {
  /** Answers one request; never rejects (failures become the protocol's error response). */
  handle(request: Request, options?: RouterHandleOptions): Promise<Response>;
}

/** Creates the API router over an engine and a model store. */
export function createRouter(options: RouterOptions): Router {
  const clock = options.clock ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const maxBlobBytes = options.maxBlobBytes ?? defaultMaxBlobBytes;
  const projectorUploads = createProjectorUploads({ clock });
  const responses = options.responses ?? createMemoryResponseStore();
  const injected = options.fetch;
  // Called unbound: browsers refuse `fetch` called as a method of another object.
  const fetchImage = limitImageFetch(
    (input, init) =>
      injected === undefined ? globalThis.fetch(input, init) : injected(input, init),
    options.imageFetchLimits,
  );

  return {
    async handle(request, handleOptions = {}) {
      const url = new URL(request.url);
      const controller = new AbortController();
      const signals = [controller.signal, request.signal];
      if (handleOptions.signal !== undefined) signals.push(handleOptions.signal);
      const head = request.method === 'HEAD';
      try {
        const { route, params } = findRoute(request.method, url.pathname);
        const context: RouteContext = {
          request,
          url,
          params,
          signal: AbortSignal.any(signals),
          abort: (reason) => controller.abort(reason),
          engine: options.engine,
          store: options.store,
          responses,
          hub: options.hub,
          clock,
          fetch: fetchImage,
          maxBodyBytes,
          maxBlobBytes,
          projectorUploads,
          version: options.version,
        };
        const response = await route.handler(context);
        return head ? new Response(null, response) : response;
      } catch (error) {
        // Stops whatever else this request started (image fetches, a generation).
        controller.abort(error);
        const lmtabError = toLmtabError(error);
        const response = errorsForPath(url.pathname).response(lmtabError);
        if (error instanceof MethodNotAllowed) response.headers.set('Allow', error.allow);
        return head ? new Response(null, response) : response;
      }
    },
  };
}

class MethodNotAllowed extends LmtabError {
  readonly allow: string;

  constructor(method: string, path: string, allowed: string[]) {
    super(
      'method_not_allowed',
      `Method ${method} is not allowed on ${path}: expected ${allowed.join(' or ')}.`,
    );
    this.allow = allowed.join(', ');
  }
}

function findRoute(
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } {
  const matches = routes.flatMap((route) => {
    const params = matchPath(route.path, pathname);
    return params === undefined ? [] : [{ route, params }];
  });
  const found =
    matches.find((m) => m.route.method === method) ??
    (method === 'HEAD' ? matches.find((m) => m.route.method === 'GET') : undefined);
  if (found !== undefined) return found;
  if (matches.length > 0) {
    const allowed = [...new Set(matches.map((m) => m.route.method))];
    throw new MethodNotAllowed(
      method,
      pathname,
      allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'] : allowed,
    );
  }
  const prefix = pathname.split('/').slice(0, 2).join('/');
  const nearby = routes.filter((r) => r.path.startsWith(`${prefix}/`));
  const listed = (nearby.length > 0 ? nearby : routes).map((r) => `${r.method} ${r.path}`);
  throw new LmtabError(
    'not_found',
    `No route for ${method} ${pathname}: expected one of ${listed.join(', ')}.`,
  );
}
