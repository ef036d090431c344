import { readGgufHeader } from './gguf-header.js';

/** What a projector (mmproj) adds to its model, as its own header declares. */
export interface ProjectorMedia {
  /** It reads images (`clip.has_vision_encoder`). */
  vision: boolean;
  /** It hears audio (`clip.has_audio_encoder`). */
  audio: boolean;
  /** It generates audio: the model speaks (`clip.has_gen_audio_encoder`). */
  speech: boolean;
}

/**
 * A projector's media, read from its header without loading it. A projector that declares none
 * (LLaVA-era files) sees.
 */
export async function readProjectorMedia(projector: Blob): Promise<ProjectorMedia> {
  const { metadata } = await readGgufHeader(projector);
  const audio = metadata.get('clip.has_audio_encoder') === true;
  const speech = metadata.get('clip.has_gen_audio_encoder') === true;
  return {
    vision: metadata.get('clip.has_vision_encoder') === true || !(audio || speech),
    audio,
    speech,
  };
}
