import { defineConfig } from '@playwright/test';
import base from './playwright.config.js';

/** `npm run screenshots`: the pictures of the four tabs in docs/gui.md and the README, taken from the built app. */
export default defineConfig({
  ...base,
  testDir: 'tests/screenshots',
  timeout: 300_000,
  reporter: [['list']],
  projects: [base.projects![0]!],
});
