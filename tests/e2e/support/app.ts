import { build } from 'esbuild';
import { expect, type Page } from '@playwright/test';
import { join } from 'node:path';
import { fixtureDir } from './paths.js';

let openAiBundle: Promise<string> | undefined;

/** The official `openai` npm package bundled for the page: `window.OpenAI`, and `window.openai` on `/v1`. */
function bundleOpenAi(): Promise<string> {
  openAiBundle ??= build({
    stdin: {
      contents: [
        "import OpenAI from 'openai';",
        'window.OpenAI = OpenAI;',
        // The way page code uses the SDK with lmtab: its own origin, any key.
        "window.openai = new OpenAI({ baseURL: location.origin + '/v1', apiKey: 'any', dangerouslyAllowBrowser: true });",
      ].join('\n'),
      resolveDir: process.cwd(),
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0].text);
  return openAiBundle;
}

/** Path of a generated fixture file. */
export function fixture(name: string): string {
  return join(fixtureDir, name);
}

/** Opens the app and waits until the service worker controls the page (first visit included). */
export async function openApp(page: Page): Promise<void> {
  await page.goto('/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

/** Imports a GGUF fixture through the app's "Import model file" control, with an optional projector. */
export async function importModel(page: Page, file: string, projector?: string): Promise<string> {
  if (projector)
    await page.getByLabel('Projector file (optional)').setInputFiles(fixture(projector));
  await page.getByLabel('Import model file').setInputFiles(fixture(file));
  const id = file.replace(/\.gguf$/, '');
  await expect(page.getByRole('status')).toHaveText(`Imported ${id}`);
  return id;
}

/** Loads the bundled `openai` client into the page as `window.openai`. */
export async function installOpenAi(page: Page): Promise<void> {
  await page.addScriptTag({ content: await bundleOpenAi() });
}

/** A small PNG made in the page, as a data URI (the vision fixture reads real pixels). */
export async function pngDataUri(page: Page, width = 64, height = 48): Promise<string> {
  return page.evaluate(
    async ([w, h]) => {
      const canvas = new OffscreenCanvas(w, h);
      const ctx = canvas.getContext('2d')!;
      ctx.fillStyle = '#3b5bdb';
      ctx.fillRect(0, 0, w, h);
      ctx.fillStyle = '#ffd43b';
      ctx.fillRect(w / 4, h / 4, w / 2, h / 2);
      const blob = await canvas.convertToBlob({ type: 'image/png' });
      const bytes = new Uint8Array(await blob.arrayBuffer());
      let binary = '';
      for (const b of bytes) binary += String.fromCharCode(b);
      return `data:image/png;base64,${btoa(binary)}`;
    },
    [width, height] as const,
  );
}
