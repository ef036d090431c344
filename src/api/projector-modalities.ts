import { readGgufHeader, type ModelRecord } from '../store/index.js';
import type { RouteContext } from './route-context.js';

/** What a stored model takes in besides text, as llama-server's `/props` names it. */
export interface InputModalities {
  vision: boolean;
  audio: boolean;
  /** Whether it generates audio (an audio generator in the projector); lmtab's addition. */
  speech: boolean;
}

/**
 * A model's input modalities, read from its projector's own header (`clip.has_vision_encoder`,
 * `clip.has_audio_encoder`) without loading it. A projector that declares neither (LLaVA-era
 * files) sees; one whose header cannot be read is taken as its engine takes it.
 */
export async function projectorModalities(
  context: Pick<RouteContext, 'engine' | 'store'>,
  record: ModelRecord,
): Promise<InputModalities> {
  const vision = context.engine.supportsImages(record);
  const textOnly = { vision, audio: false, speech: false };
  if (record.projector === undefined) return textOnly;
  try {
    const { projector } = await context.store.open(record.id);
    if (projector === undefined) return textOnly;
    const { metadata } = await readGgufHeader(projector);
    const audio = metadata.get('clip.has_audio_encoder') === true;
    const speech = metadata.get('clip.has_gen_audio_encoder') === true;
    return {
      vision: metadata.get('clip.has_vision_encoder') === true || !(audio || speech),
      audio,
      speech,
    };
  } catch {
    return textOnly;
  }
}
