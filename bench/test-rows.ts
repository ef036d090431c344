import type { EngineRow } from './results.js';
import { summarize, type Figure } from './stats.js';

/** Test data for the bench's tests: a figure summarizing these runs. */
export const figure = (...runs: number[]) => summarize(runs) as Figure;

/** Test data: a measured wllama row (350M, WASM, 2 threads) with `overrides`. */
export const engineRow = (overrides: Partial<EngineRow>): EngineRow => ({
  size: '350M',
  engine: 'wllama',
  backend: 'wasm',
  threads: 2,
  available: true,
  ...overrides,
});
