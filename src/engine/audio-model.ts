import { LmtabError } from '../errors/index.js';

/** What a model must have to hear: an audio encoder in its projector (llama.cpp's mtmd). */
const hearingNeed =
  'a GGUF model with an audio projector (an mmproj with an audio encoder, as LFM2.5-Audio and LFM3-Audio ship), run by wllama';

/** A 400 for audio sent to a model that cannot hear it, with why it cannot. */
export function cannotHear(model: string, why: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `Model "${model}" cannot hear audio: ${why}. Expected ${hearingNeed}.`,
    { param: 'model' },
  );
}

/** A 400 for speech asked of a model that cannot speak, with why it cannot. */
export function cannotSpeak(model: string, why: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `Model "${model}" cannot speak: ${why}. Expected a GGUF model that generates audio (an mmproj with an audio generator, as LFM2.5-Audio and LFM3-Audio ship), run by wllama.`,
    { param: 'model' },
  );
}

/** An async iterable whose first read throws `error` (an engine that refuses a stream). */
export async function* rejecting<T>(error: Error): AsyncGenerator<T> {
  yield* [] as T[];
  throw error;
}
