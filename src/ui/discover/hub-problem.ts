import type { LmtabErrorCode } from '../../errors/index.js';

/** A failed hub call as Discover shows it: what happened, what to do, and the details. */
export interface HubProblem {
  kind: 'offline' | 'rate-limited' | 'gated' | 'not-found' | 'unreachable';
  title: string;
  advice: string;
  /** The error's own message, naming the URL and the answer. */
  detail: string;
  /** The error's code, shown beside the message, when it has one. */
  code?: string;
}

/** The parts of an error (an `LmtabError`, usually) a hub problem is told from. */
interface ErrorLike {
  code?: LmtabErrorCode | string;
  retryAfter?: number;
  message?: string;
}

/** Tells a failed hub call's kind by its code (never its message) and the network. */
export function hubProblem(error: unknown, online = true): HubProblem {
  const problem = classify(error, online);
  const code = (error as ErrorLike | null)?.code;
  return typeof code === 'string' ? { ...problem, code } : problem;
}

function classify(error: unknown, online: boolean): HubProblem {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  const detail = typeof e.message === 'string' ? e.message : String(error);
  if (!online) {
    return {
      kind: 'offline',
      title: 'You are offline',
      advice:
        'The hub cannot be reached without a network. Models you already downloaded still work; reconnect, then retry.',
      detail,
    };
  }
  if (e.code === 'hub_rate_limited') {
    const wait = e.retryAfter === undefined ? 'a minute' : `${Math.ceil(e.retryAfter)} s`;
    return {
      kind: 'rate-limited',
      title: 'The hub is rate-limiting requests',
      advice: `Wait ${wait}, then retry. Signed-in requests get a higher limit: set a hub token in Hub settings.`,
      detail,
    };
  }
  if (e.code === 'unauthorized') {
    return {
      kind: 'gated',
      title: 'This model needs a hub token',
      advice:
        'It is gated or private: accept its terms on the hub with your account, then set an access token (hf_…) in Hub settings and retry.',
      detail,
    };
  }
  if (e.code === 'model_not_found') {
    return {
      kind: 'not-found',
      title: 'Not found on the hub',
      advice: 'Check the repository name and the hub endpoint in Hub settings.',
      detail,
    };
  }
  return {
    kind: 'unreachable',
    title: 'The hub did not answer',
    advice:
      'Check your connection and the hub endpoint in Hub settings, then retry. Models you already downloaded still work.',
    detail,
  };
}
