import { type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import { overflowingElements, unnamedControls } from './support/accessibility.js';
import { importModel, openApp, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';
import { startE2eHub, useHub } from './support/hub.js';
import type { FakeHub } from '../support/fake-hub.js';

const tabNames = ['Chat', 'Developer', 'My Models', 'Discover'];

async function selectedTab(page: Page) {
  return (await page.getByRole('tab', { selected: true }).innerText()).trim();
}

test.describe('the app shell', () => {
  // Discover asks the hub for its featured models: a fake one keeps the traffic on loopback.
  let hub: FakeHub;
  test.beforeAll(async () => {
    hub = await startE2eHub();
  });
  test.afterAll(async () => {
    await hub.close();
  });

  test(
    'four tabs with roles, arrow keys, and the tab kept in the URL across a reload',
    { tag: '@smoke' },
    async ({ page }) => {
      const problems = watchConsole(page);
      await useHub(page, hub);
      await openApp(page);
      const tablist = page.getByRole('tablist');
      await expect(tablist.getByRole('tab')).toHaveText(tabNames);
      expect(await selectedTab(page)).toBe('Chat');
      await expect(page.getByRole('tabpanel')).toHaveCount(1);
      await expect(page.getByRole('tabpanel', { name: 'Chat' })).toBeVisible();

      await page.getByRole('tab', { name: 'Chat' }).focus();
      await page.keyboard.press('ArrowRight');
      await expect(page.getByRole('tab', { name: 'Developer' })).toBeFocused();
      expect(await selectedTab(page)).toBe('Developer');
      await expect(page.getByRole('tabpanel', { name: 'Developer' })).toBeVisible();
      await expect(page.getByRole('tabpanel', { name: 'Chat' })).toBeHidden();
      expect(new URL(page.url()).hash).toBe('#developer');
      await page.keyboard.press('End');
      expect(await selectedTab(page)).toBe('Discover');
      await page.keyboard.press('ArrowDown');
      expect(await selectedTab(page)).toBe('Chat');
      await page.keyboard.press('ArrowLeft');
      expect(await selectedTab(page)).toBe('Discover');
      await page.keyboard.press('Home');
      expect(await selectedTab(page)).toBe('Chat');
      // Only the selected tab is in the tab order; Tab moves into its panel.
      await expect(page.getByRole('tab', { name: 'Developer' })).toHaveAttribute('tabindex', '-1');

      await openTab(page, 'My Models');
      expect(new URL(page.url()).hash).toBe('#models');
      await page.reload();
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      expect(await selectedTab(page)).toBe('My Models');
      await expect(page.getByRole('tabpanel', { name: 'My Models' })).toBeVisible();

      await page.goto('/#developer');
      expect(await selectedTab(page)).toBe('Developer');
      expect(problems).toEqual([]);
    },
  );

  test('every control in every tab has a role and a name', async ({ page }) => {
    const problems = watchConsole(page);
    await useHub(page, hub);
    await openApp(page);
    await importModel(page, 'tiny-lfm2-vl.gguf', 'mmproj-tiny-lfm2-vl.gguf');
    for (const name of tabNames) {
      await openTab(page, name);
      const panel = page.getByRole('tabpanel', { name });
      await expect(panel).toBeVisible();
      await expect(page.getByRole('tab', { name })).toHaveAttribute(
        'aria-controls',
        (await panel.getAttribute('id'))!,
      );
      expect(await unnamedControls(page), `unnamed controls in ${name}`).toEqual([]);
    }
    await openTab(page, 'Chat');
    await page.getByRole('button', { name: 'Image from URL' }).click();
    await page.getByRole('button', { name: 'Delete New chat' }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    expect(await unnamedControls(page), 'unnamed controls with the dialog open').toEqual([]);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toBeHidden();
    expect(problems).toEqual([]);
  });

  test('at 390 px in the dark scheme every tab fits and the chat panels open as drawers', async ({
    page,
  }, testInfo) => {
    test.setTimeout(300_000);
    const problems = watchConsole(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await useHub(page, hub);
    await openApp(page);
    const background = await page
      .locator('lmtab-app')
      .evaluate((app) => getComputedStyle(app).backgroundColor);
    const [r, g, b] = background.match(/\d+/g)!.map(Number);
    expect(0.2126 * r! + 0.7152 * g! + 0.0722 * b!).toBeLessThan(40);
    const tabBar = await page.getByRole('tablist').boundingBox();
    expect(tabBar!.y).toBeGreaterThan(700);

    await importModel(page, 'tiny-lfm2.gguf');
    await page.getByRole('button', { name: 'Chat settings' }).click();
    const maxTokens = page.getByRole('spinbutton', { name: 'Max tokens', exact: true });
    await maxTokens.fill('12');
    await maxTokens.press('Tab');
    await page.keyboard.press('Escape');
    await expect(maxTokens).toBeHidden();
    await page.getByLabel('Message').fill('Hello from a phone');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByTestId('stats')).toContainText('finish:', { timeout: 150_000 });

    for (const name of tabNames) {
      await openTab(page, name);
      expect(await overflowingElements(page), `overflow in ${name}`).toEqual([]);
      const file = `${name.toLowerCase().replace(' ', '-')}-390-dark.png`;
      await page.screenshot({ path: testInfo.outputPath(file) });
      await testInfo.attach(`${name} at 390 px, dark`, { path: testInfo.outputPath(file) });
    }

    await openTab(page, 'Chat');
    await page.getByRole('button', { name: 'Chats', exact: true }).click();
    const newChat = page.getByRole('button', { name: 'New chat', exact: true });
    await expect(newChat).toBeFocused();
    expect(await overflowingElements(page)).toEqual([]);
    await page.screenshot({ path: testInfo.outputPath('chats-drawer-390-dark.png') });
    await testInfo.attach('chats drawer at 390 px', {
      path: testInfo.outputPath('chats-drawer-390-dark.png'),
    });
    await page.keyboard.press('Escape');
    await expect(newChat).toBeHidden();
    await expect(page.getByRole('button', { name: 'Chats', exact: true })).toBeFocused();
    await page.getByRole('button', { name: 'Chat settings' }).click();
    await expect(page.getByRole('button', { name: 'Close chat settings' })).toBeFocused();
    await expect(page.getByRole('button', { name: 'Reset to defaults' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('settings-drawer-390-dark.png') });
    await testInfo.attach('settings drawer at 390 px', {
      path: testInfo.outputPath('settings-drawer-390-dark.png'),
    });
    await page.getByRole('button', { name: 'Close chat settings' }).click();
    await expect(page.getByRole('button', { name: 'Reset to defaults' })).toBeHidden();
    expect(problems).toEqual([]);
  });
});
