import { ensureAudioFixtures } from '../support/audio-fixtures.js';
import { ensureEmbeddingFixtures } from '../support/embedding-fixtures.js';
import { ensureFixtures } from '../support/lfm2-fixtures.js';
import { ensureSpeechFixtures } from '../support/speech-fixtures.js';
import { fixtureDir } from './support/paths.js';

/** Writes the tiny GGUF fixtures once; later runs reuse them. */
export default async function globalSetup(): Promise<void> {
  await ensureFixtures(fixtureDir);
  await ensureEmbeddingFixtures(fixtureDir);
  await ensureAudioFixtures(fixtureDir);
  await ensureSpeechFixtures(fixtureDir);
}
