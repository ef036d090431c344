import { WllamaAbortError, WllamaRuntimeError } from '@wllama/wllama/esm/index.js';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import type { LogRing } from '../log-ring.js';
import { gpuDeviceLostError } from '../gpu/gpu-loss.js';
import type { Resident } from './wllama-runtime.js';

/**
 * The engine's own words for a failed request: wllama reports a refused request body only as
 * "Invalid typed array length" (it reads an error result as a buffer), while llama.cpp logged
 * why; the last error line of the log is that reason.
 */
export function engineReason(message: string, log: LogRing): string {
  if (!message.includes('Invalid typed array length')) return message;
  const line = log
    .lines()
    .reverse()
    .find((l) => /error|exception|failed|invalid/i.test(l) && !l.includes('Invalid typed array'));
  return line === undefined ? message : line.replace(/^\s*\S*(error|ERR)\S*:?\s*/i, '').trim();
}

/**
 * What a failed request on a resident model becomes, before a request reads its own causes in it:
 * an abort, a lost GPU device, or the engine's error (its instance marked broken when wllama
 * rejected every pending task, so the next request gets a fresh one).
 */
export function requestFailure(
  current: Resident,
  error: unknown,
  signal?: AbortSignal,
): LmtabError {
  if (error instanceof WllamaAbortError || signal?.aborted) {
    return new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
  }
  if (error instanceof WllamaRuntimeError) current.broken = true;
  const lost = current.backend.gpuLoss();
  if (lost !== undefined) return gpuDeviceLostError(current, lost, error);
  return toLmtabError(error);
}

/** An engine failure in llama.cpp's own words, with the last lines of its log. */
export function engineFailure(current: Resident, failure: LmtabError, error: unknown): LmtabError {
  if (failure.code !== 'engine_failure') return failure;
  return new LmtabError(
    'engine_failure',
    `${engineReason(failure.message, current.log)}. Last engine log: ${current.log.tail(3)}`,
    { cause: error },
  );
}

/** Why a resident model does not hear. */
export function hearingReason(current: Resident): string {
  return current.wllama.supportInputModality('image')
    ? 'its projector (mmproj) has a vision encoder and no audio encoder'
    : 'it has no projector (mmproj)';
}
