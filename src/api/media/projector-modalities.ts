import {
  readProjectorMedia,
  type ModelRecord,
  type ModelStore,
  type ProjectorMedia,
} from '../../store/index.js';
import type { Engine } from '../../engine/index.js';

/** What a stored model takes in besides text, as llama-server's `/props` names it (and `speech`, lmtab's). */
export type InputModalities = ProjectorMedia;

/**
 * A model's input modalities, read from its projector's own header (`clip.has_vision_encoder`,
 * `clip.has_audio_encoder`) without loading it. A projector that declares neither (LLaVA-era
 * files) sees; one whose header cannot be read is taken as its engine takes it.
 */
export async function projectorModalities(
  context: { engine: Engine; store: ModelStore },
  record: ModelRecord,
): Promise<InputModalities> {
  const vision = context.engine.supportsImages(record);
  const textOnly = { vision, audio: false, speech: false };
  if (record.projector === undefined) return textOnly;
  try {
    const { projector } = await context.store.open(record.id);
    if (projector === undefined) return textOnly;
    return await readProjectorMedia(projector);
  } catch {
    return textOnly;
  }
}
