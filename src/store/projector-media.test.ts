import { describe, expect, it } from 'vitest';
import { audioProjector } from '../../tests/support/audio-fixtures.js';
import { encodeGguf } from '../../tests/support/gguf-writer.js';
import { speechProjector } from '../../tests/support/speech-fixtures.js';
import { readProjectorMedia } from './projector-media.js';

const blobOf = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);

describe('readProjectorMedia', () => {
  it('reads what a projector adds from its header', async () => {
    expect(await readProjectorMedia(blobOf(encodeGguf(audioProjector())))).toEqual({
      vision: false,
      audio: true,
      speech: false,
    });
    // Pocket TTS: its voice encoder hears, its generator speaks.
    expect(await readProjectorMedia(blobOf(encodeGguf(speechProjector())))).toEqual({
      vision: false,
      audio: true,
      speech: true,
    });
  });

  it('takes a projector that declares nothing (LLaVA-era) to see', async () => {
    const model = audioProjector();
    const metadata = { ...model.metadata };
    delete metadata['clip.has_audio_encoder'];
    expect(await readProjectorMedia(blobOf(encodeGguf({ ...model, metadata })))).toEqual({
      vision: true,
      audio: false,
      speech: false,
    });
  });
});
