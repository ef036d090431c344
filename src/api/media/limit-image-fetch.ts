/** Time limits of image fetches (`image_url`, Ollama's `images` given as URLs). */
export interface ImageFetchLimits {
  /** Milliseconds until the image server answers with its headers; default in {@link defaultImageFetchLimits}. */
  connectMs?: number;
  /** Milliseconds for the whole image, body included; default in {@link defaultImageFetchLimits}. */
  totalMs?: number;
}

/** The default {@link ImageFetchLimits}. */
export const defaultImageFetchLimits = { connectMs: 10_000, totalMs: 30_000 } as const;

/**
 * Wraps the fetch that image URLs go through with a connect limit (until the answer's headers)
 * and a total limit (until its last byte), so that a server that accepts and never answers, or
 * answers forever, cannot hold an engine slot. A fetch past a limit rejects (and so does reading
 * its body) with an Error saying which limit it reached.
 */
export function limitImageFetch(
  fetch: typeof globalThis.fetch,
  limits: ImageFetchLimits = {},
): typeof globalThis.fetch {
  const connectMs = limits.connectMs ?? defaultImageFetchLimits.connectMs;
  const totalMs = limits.totalMs ?? defaultImageFetchLimits.totalMs;
  return async (input, init = {}) => {
    const limit = new AbortController();
    const stop = (message: string) => () => limit.abort(new Error(message));
    const connect = setTimeout(
      stop(`the image server sent no answer within ${connectMs / 1000} s (the connect limit)`),
      connectMs,
    );
    const total = setTimeout(
      stop(`the image did not arrive within ${totalMs / 1000} s (the total limit)`),
      totalMs,
    );
    const signal =
      init.signal === undefined || init.signal === null
        ? limit.signal
        : AbortSignal.any([init.signal, limit.signal]);
    try {
      const response = await fetch(input, { ...init, signal });
      clearTimeout(connect);
      return response;
    } catch (error) {
      clearTimeout(total);
      throw limit.signal.aborted ? limit.signal.reason : error;
    } finally {
      clearTimeout(connect);
      // The total limit keeps running while the body is read; it is cleared at the latest then.
      signal.addEventListener('abort', () => clearTimeout(total), { once: true });
    }
  };
}
