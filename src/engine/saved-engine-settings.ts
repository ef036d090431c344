// The load settings persist in the page's localStorage, where the Developer tab saves them and the
// headless engine's init script writes them (src/cloud/headless-storage.ts).
import type { EngineSettings } from './engine.js';

const key = 'lmtab.engine-settings';

/** Reads the person's load settings (GPU layers, context length, threads) from localStorage. */
export function loadEngineSettings(): EngineSettings {
  try {
    const parsed = JSON.parse(localStorage.getItem(key) ?? '{}') as EngineSettings;
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/** Saves load settings; they apply when the engine next starts (a reload). */
export function saveEngineSettings(settings: EngineSettings): void {
  localStorage.setItem(key, JSON.stringify(settings));
}
