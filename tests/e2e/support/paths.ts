import { fileURLToPath } from 'node:url';

/** Where the generated GGUF fixtures live (ignored by git). */
export const fixtureDir = fileURLToPath(new URL('../../.cache/fixtures/', import.meta.url));
