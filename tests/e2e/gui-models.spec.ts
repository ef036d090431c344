import { expect, test } from '@playwright/test';
import { importModel, openApp, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';

test('My Models lists each model with its facts and storage, and deletes after asking', async ({
  page,
}, testInfo) => {
  test.setTimeout(300_000);
  const problems = watchConsole(page);
  await openApp(page);
  await openTab(page, 'My Models');
  const panel = page.getByRole('tabpanel', { name: 'My Models' });
  await expect(panel).toContainText('No models yet');
  const text = await importModel(page, 'tiny-lfm2.gguf');
  const vision = await importModel(page, 'tiny-lfm2-vl.gguf', 'mmproj-tiny-lfm2-vl.gguf');

  // The projector went with the vision model; the next import starts without one.
  await expect(panel.getByLabel('Projector file (optional)')).toHaveValue('');
  const list = panel.getByRole('list', { name: 'Stored models' });
  await expect(list.getByRole('listitem')).toHaveCount(2);
  const textItem = list.locator(`[data-model="${text}"]`);
  const visionItem = list.locator(`[data-model="${vision}"]`);
  await expect(textItem.getByRole('heading')).toHaveText(text);
  await expect(textItem).toContainText('F16');
  await expect(textItem).toContainText(/Size:?\s*396\.3 KB/);
  await expect(textItem).toContainText(/Architecture:?\s*lfm2/);
  await expect(textItem).toContainText(/Last used:?\s*never/);
  await expect(textItem).not.toContainText('Vision');
  await expect(visionItem).toContainText('Vision');
  await expect(visionItem).toContainText(/Size:?\s*568\.3 KB/);
  await expect(panel).toContainText('2 models, 964.6 KB in this browser.');
  await expect(panel.getByRole('meter', { name: 'Storage' })).toHaveAttribute(
    'aria-valuetext',
    /used of/,
  );

  await page.evaluate(
    (model) =>
      fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 }),
      }).then((r) => r.json()),
    text,
  );
  await openTab(page, 'Chat');
  await openTab(page, 'My Models');
  await expect(textItem).toContainText(/Last used:?\s*just now/);
  await page.screenshot({ path: testInfo.outputPath('my-models.png'), fullPage: true });
  await testInfo.attach('my models tab', { path: testInfo.outputPath('my-models.png') });

  await visionItem.getByRole('button', { name: `Delete ${vision}` }).click();
  const dialog = page.getByRole('dialog', { name: `Delete ${vision}?` });
  await expect(dialog).toContainText('This frees 568.3 KB');
  await page.screenshot({ path: testInfo.outputPath('delete-dialog.png') });
  await testInfo.attach('delete confirmation', { path: testInfo.outputPath('delete-dialog.png') });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await visionItem.getByRole('button', { name: `Delete ${vision}` }).click();
  await dialog.getByRole('button', { name: 'Delete model' }).click();
  await expect(dialog).toBeHidden();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(panel).toContainText('1 model, 396.3 KB in this browser.');
  await openTab(page, 'Chat');
  await expect(page.getByLabel('Model', { exact: true }).locator('option')).toHaveText([text]);
  expect(await page.evaluate(async () => (await (await fetch('/v1/models')).json()).data)).toEqual([
    expect.objectContaining({ id: text }),
  ]);
  expect(problems).toEqual([]);
});
