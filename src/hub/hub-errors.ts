import { LmtabError } from '../errors/index.js';

// The hub's failures in lmtab's words: what was asked of which hub, and what came back instead.

/** What a request was about, for its error: the repository and revision, when there is one. */
export interface RequestContext {
  repo?: string;
  revision?: string;
}

/** A request that got no HTTP answer: `aborted`, or `download_failed` naming the hub. */
export function networkError(
  error: unknown,
  url: string,
  endpoint: string,
  signal: AbortSignal | undefined,
): LmtabError {
  if (error instanceof LmtabError) return error;
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
    return new LmtabError(
      'aborted',
      `The request GET ${url} was aborted before the hub answered.`,
      {
        cause: error,
      },
    );
  }
  return new LmtabError(
    'download_failed',
    `Could not reach the hub at ${endpoint}: expected an HTTP answer to GET ${url}, got ${describeError(error)}.`,
    { cause: error },
  );
}

/**
 * A request the hub answered with an error status: a missing revision or repository
 * (`model_not_found`), a refusal (`unauthorized`, with what to do about the token), a rate limit
 * (`hub_rate_limited`, with its wait), or else `download_failed`.
 */
export async function statusError(
  response: Response,
  url: string,
  about: RequestContext,
  endpoint: string,
  token: string | undefined,
): Promise<LmtabError> {
  const code = response.headers.get('X-Error-Code');
  const detail = await errorDetail(response);
  const got = `HTTP ${response.status}${code === null ? '' : ` ${code}`}${detail}`;
  const { repo, revision } = about;
  if (code === 'RevisionNotFound' && repo !== undefined) {
    return new LmtabError(
      'model_not_found',
      `Revision ${JSON.stringify(revision ?? 'main')} of ${repo} was not found on ${endpoint}: expected a branch, tag or commit, got ${got}.`,
    );
  }
  // Without a token the hub answers 401 RepoNotFound for missing and private repos alike, so
  // that it does not reveal which private repos exist: say both.
  if ((response.status === 404 || code === 'RepoNotFound') && repo !== undefined) {
    const hint =
      response.status === 401 && token === undefined
        ? ' (if it is private or gated, set a hub token)'
        : '';
    return new LmtabError(
      'model_not_found',
      `Repository ${repo} was not found on ${endpoint}${hint}: expected a model repository at GET ${url}, got ${got}.`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    const advice =
      token === undefined
        ? 'set a hub token'
        : 'set a hub token that is valid and has been granted access';
    const sent = token === undefined ? 'no token was sent' : 'the token sent was refused';
    const what =
      repo === undefined
        ? `The hub at ${endpoint} refused the request: ${advice}`
        : `${repo} is gated or private: ${advice}`;
    return new LmtabError(
      'unauthorized',
      `${what} (expected access to GET ${url}, got ${got}; ${sent}).`,
    );
  }
  if (response.status === 429) {
    // Rate limited: the status and the wait travel, so callers can say "try again in N s".
    const retryAfter = Number(response.headers.get('Retry-After') ?? '');
    return new LmtabError(
      'hub_rate_limited',
      `The hub at ${endpoint} is rate-limiting requests: expected HTTP 200 for GET ${url}, got ${got}.`,
      { retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 60 },
    );
  }
  // Anything else (a 404 outside a repository, 5xx): the hub or HF_ENDPOINT is at fault.
  return new LmtabError(
    'download_failed',
    `Expected HTTP 200 from the hub at ${endpoint} for GET ${url}, got ${got}.`,
  );
}

async function errorDetail(response: Response): Promise<string> {
  const header = response.headers.get('X-Error-Message');
  if (header !== null && header !== '') return `: ${header}`;
  try {
    const text = await response.text();
    try {
      const json = JSON.parse(text) as { error?: unknown };
      if (typeof json.error === 'string') return `: ${json.error}`;
    } catch {
      // Not JSON: fall through to the raw text.
    }
    return text.trim() === '' ? '' : `: ${describeText(text)}`;
  } catch {
    return '';
  }
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const reason =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : undefined;
  return reason === undefined ? error.message : `${error.message} (${reason})`;
}

/** A body as an error quotes it: flattened, at most 120 characters. */
export function describeText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return 'an empty body';
  return JSON.stringify(flat.length > 120 ? `${flat.slice(0, 120)}...` : flat);
}
