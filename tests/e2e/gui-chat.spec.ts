import { expect, test, type Page } from '@playwright/test';
import { importModel, openApp, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';

/** Sets a numeric chat setting the way a person does: type, then leave the field. */
async function setNumber(page: Page, label: string, value: string) {
  const field = page.getByRole('spinbutton', { name: label, exact: true });
  await field.fill(value);
  await field.press('Tab');
}

test.describe('Chat tab', () => {
  test('choosing a model loads it; answers stream with stats, stop and regenerate', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await openApp(page);
    const other = await importModel(page, 'tiny-lfm2moe.gguf');
    const model = await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Chat');
    const select = page.getByLabel('Model', { exact: true });
    await expect(select).toHaveValue(other);
    await select.selectOption(model);
    await expect(page.getByText(`Loading ${model}…`)).toBeVisible();
    await expect(page.getByText(/^Loaded in \d+\.\d s$/)).toBeVisible();

    await setNumber(page, 'Temperature', '0');
    await setNumber(page, 'Max tokens', '24');
    await page.getByLabel('Message').fill('Count with me');
    await page.getByRole('button', { name: 'Send' }).click();
    const answers = page.locator('lmtab-chat-message[data-role="assistant"]');
    const stats = answers.last().getByTestId('stats');
    await expect(stats).toContainText('finish: length (max tokens)');
    await expect(stats).toContainText('24 tokens');
    await expect(stats).toContainText(/\d+\.\d tok\/s/);
    await expect(stats).toContainText(/\d\.\d\d s to first token/);
    await page.screenshot({ path: testInfo.outputPath('chat.png') });
    await testInfo.attach('chat tab', { path: testInfo.outputPath('chat.png') });

    // No limit and some randomness: a long answer to stop, then to regenerate shorter.
    await page.getByRole('spinbutton', { name: 'Max tokens', exact: true }).fill('');
    await page.getByRole('spinbutton', { name: 'Max tokens', exact: true }).press('Tab');
    await setNumber(page, 'Temperature', '1');
    await page.getByLabel('Message').fill('Tell me a long story');
    await page.getByLabel('Message').press('Enter');
    await expect(answers).toHaveCount(2);
    await expect(answers.last().locator('lmtab-markdown')).toContainText(/\S{3}/);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(answers.last().getByTestId('stats')).toContainText('stopped by you');

    await setNumber(page, 'Max tokens', '6');
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await expect(answers.last().getByTestId('stats')).toContainText(/finish: (stop|length)/);
    await expect(answers).toHaveCount(2);
    await expect(page.locator('lmtab-chat-message[data-role="user"]')).toHaveCount(2);
    expect(problems).toEqual([]);
  });
});
