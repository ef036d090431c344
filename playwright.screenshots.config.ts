import { defineConfig } from '@playwright/test';
import base from './playwright.config.js';

/** `npm run screenshots`: the README's pictures of the four tabs, taken from the built app. */
export default defineConfig({
  ...base,
  testDir: 'tests/screenshots',
  timeout: 300_000,
  reporter: [['list']],
  projects: [base.projects![0]!],
});
