import type { Wllama } from '@wllama/wllama/esm/index.js';
import { LmtabError } from '../../errors/index.js';
import type { EngineInfo } from '../engine.js';
import type { LogRing } from '../log-ring.js';
import { loadFailureCause } from '../memory/memory-fit.js';

/** What {@link loadWllama} needs besides the instance: its log, the model's label, its backend. */
export interface LoadWllamaContext {
  log: LogRing;
  /** How the failure names the model, e.g. `lfm2-350m` or `embedding model bge-small`. */
  label: string;
  info: EngineInfo;
}

/**
 * Loads model files into a new wllama instance; on failure (a throw, or a load result that says
 * it failed) the instance's worker is ended and the error is an `engine_failure` quoting the
 * engine's last log lines (wllama's own message is often only a number).
 */
export async function loadWllama(
  wllama: Wllama,
  files: Blob[],
  params: Parameters<Wllama['loadModel']>[1],
  context: LoadWllamaContext,
): Promise<void> {
  try {
    await wllama.loadModel(files, params);
    // wllama resolves even when llama.cpp could not make the context (its load result says
    // success: false); the first request would then abort the engine.
    const loaded = wllama.getLoadedContextInfo() as { success?: boolean };
    if (loaded.success === false) {
      throw new Error('llama.cpp could not create the model or its context');
    }
  } catch (error) {
    await wllama.exit().catch(() => undefined);
    const cause = loadFailureCause(context.log.lines());
    if (cause !== undefined) {
      throw new LmtabError(
        'model_too_large',
        `Loading ${context.label} on ${context.info.backend} failed: ${cause}. Last engine log: ${context.log.tail(3)}`,
        { cause: error },
      );
    }
    throw new LmtabError(
      'engine_failure',
      `Loading ${context.label} on ${context.info.backend} failed: ${error instanceof Error ? error.message : String(error)}. Last engine log: ${context.log.tail(3)}`,
      { cause: error },
    );
  }
}
