import type { Wllama } from '@wllama/wllama/esm/index.js';
import { WllamaAbortError, WllamaError } from '@wllama/wllama/esm/index.js';
import { wllamaProxy } from '../wllama-internals.js';

/** Options of {@link wllamaRawCompletion}. */
export interface WllamaRawCompletionOptions {
  /** Aborting cancels the completion in the worker. */
  signal?: AbortSignal;
}

/**
 * A raw-prompt completion as `createCompletion({ stream: true })` yields it, but one that survives
 * tokens that are not valid UTF-8 on their own.
 *
 * Why: wllama 3.8.1 serializes each raw-completion result with nlohmann's strict `dump()`, which
 * throws on invalid UTF-8 (a byte token such as 0x8F); the action then returns no output and the
 * worker reads the input buffer's `GLUE` magic as a length ("Invalid typed array length:
 * 1163217991"), failing the whole request. Chat completions sanitize their text and do not fail.
 * The failed result is already taken from the queue, so reading on loses only those bytes.
 */
export async function* wllamaRawCompletion(
  wllama: Wllama,
  params: Record<string, unknown>,
  options: WllamaRawCompletionOptions = {},
): AsyncGenerator<Record<string, unknown>> {
  const { signal } = options;
  const proxy = wllamaProxy(wllama);
  const started = await proxy.wllamaAction('completion', {
    _name: 'cmpl_req',
    is_chat: false,
    is_asr: false,
    data_json: JSON.stringify({ ...params, stream: true }),
    files: [],
  });
  if (started.success !== true) {
    throw new WllamaError('Model failed to start inference', 'inference_error');
  }
  const reqId = started.req_id as number;
  let completed = false;
  let unreadable = 0;
  try {
    for (;;) {
      if (signal?.aborted === true) throw new WllamaAbortError();
      let chunk: Record<string, unknown>;
      try {
        chunk = await proxy.wllamaAction('get_result', { _name: 'gres_req', req_id: reqId });
      } catch (error) {
        // Only the invalid-UTF-8 failure above is skipped (wllama gives it no code, so its text
        // is matched), and not endlessly in a row. wllama rejects every queued action with it, so
        // other requests' reads land here too and are simply made again.
        if (!isUnreadableResult(error) || ++unreadable > 64) throw error;
        continue;
      }
      unreadable = 0;
      const data = typeof chunk.data_json === 'string' ? chunk.data_json : '';
      if (data !== '' && data !== 'null') {
        const value = JSON.parse(data) as Record<string, unknown> | Record<string, unknown>[];
        if (chunk.is_error === true) {
          const message = Array.isArray(value) ? undefined : value.message;
          throw new WllamaError(
            typeof message === 'string' ? message : 'Unknown inference error',
            'inference_error',
          );
        }
        yield* Array.isArray(value) ? value : [value];
      }
      if (chunk.has_more !== true) {
        completed = true;
        return;
      }
    }
  } finally {
    if (!completed) {
      await proxy
        .wllamaAction('cancel', { _name: 'cncl_req', req_id: reqId })
        .catch(() => undefined);
    }
  }
}

function isUnreadableResult(error: unknown): boolean {
  return error instanceof Error && error.message.includes('Invalid typed array length');
}
