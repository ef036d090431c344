import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { sha256BlocksSource } from './build.mjs';

it('src/store/sha256-blocks-wasm.ts is what sha256-blocks.wat assembles to (npm run build:sha256)', async () => {
  const current = await readFile(
    new URL('../../src/store/sha256-blocks-wasm.ts', import.meta.url),
    'utf8',
  );
  expect(current).toBe(await sha256BlocksSource());
});
