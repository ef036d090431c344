import type { Page } from '@playwright/test';

/**
 * Collects console errors and warnings of the page's context (the page, its workers and the
 * service worker) and the page's uncaught exceptions, so a test of normal use can assert there
 * were none.
 */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.context().on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      const where = message.location().url;
      problems.push(`${message.type()}: ${message.text()}${where ? ` (${where})` : ''}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return problems;
}
