import { defineConfig } from '@playwright/test';
import base from './playwright.config.js';

/** A project of the e2e config, by name. */
function project(name: string) {
  const found = base.projects?.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`playwright.config.ts has no project named ${name}`);
  return found;
}

/**
 * `npm run screenshots`: the pictures of the four tabs in docs/gui.md and the README, taken from the
 * built app in the e2e config's Chromium, and the Developer tab on WebGPU (lavapipe) in its WebGPU
 * browser (the test installs lavapipe and the layer itself: no setup project here).
 */
export default defineConfig({
  ...base,
  testDir: 'tests/screenshots',
  timeout: 300_000,
  reporter: [['list']],
  projects: [
    { ...project('chromium'), testIgnore: [], grepInvert: /@webgpu/ },
    { ...project('webgpu'), testIgnore: [], dependencies: [] },
  ],
});
