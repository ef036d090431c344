import { type Page, type PlaywrightWorkerArgs, type TestInfo } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import type { EngineSettings } from '../../src/engine/index.js';
import { speechAnswer } from '../support/speech-fixtures.js';
import {
  fixture,
  importModel,
  openApp,
  openTab,
  pngDataUri,
  withEngineSettings,
} from './support/app.js';
import { watchConsole } from './support/console.js';
import { hearingEngineSettings } from './support/relay.js';

/** Generation on two shared cores can be slow: waits for answers allow for it. */
const slow = { timeout: 150_000 };

/** A seed with which the tiny model's answer to "Tell me a long story" runs past 600 tokens. */
const longStorySeed = 1;

/** Sets a numeric chat setting the way a person does: type, then leave the field. */
/**
 * Runs `use` on a page of its own Chromium whose fake microphone plays a turn (0.8 s of tone,
 * then silence) in a loop; its engine starts with `engineSettings` when given.
 */
async function withFakeMicrophone(
  playwright: PlaywrightWorkerArgs['playwright'],
  baseURL: string | undefined,
  testInfo: TestInfo,
  { engineSettings }: { engineSettings?: EngineSettings },
  use: (page: Page) => Promise<void>,
): Promise<void> {
  const { launchOptions = {} } = testInfo.project.use;
  const browser = await playwright.chromium.launch({
    ...launchOptions,
    args: [
      ...(launchOptions.args ?? []),
      `--use-file-for-fake-audio-capture=${fixture('turn-6s.wav')}`,
    ],
  });
  try {
    const context = await browser.newContext({ baseURL });
    if (engineSettings !== undefined) await withEngineSettings(context, engineSettings);
    await use(await context.newPage());
  } finally {
    await browser.close();
  }
}

/**
 * Imports `name` with its projector, chooses it in the Chat tab (the picker saying what the
 * projector adds: `media`, read from its header), caps answers at 4 tokens and presses Talk;
 * resolves to the button that ends the conversation.
 */
async function startTalk(page: Page, name: string, media: string) {
  await openApp(page);
  const model = await importModel(page, `${name}.gguf`, `mmproj-${name}.gguf`);
  await openTab(page, 'Chat');
  const picker = page.getByLabel('Model', { exact: true });
  await expect(picker).toHaveValue(model);
  await expect(picker.locator('option:checked')).toHaveText(`${model} · ${media}`);
  await setNumber(page, 'Max tokens', '4');
  await page.getByRole('button', { name: 'Talk', exact: true }).click();
  const end = page.getByRole('button', { name: 'End the voice conversation' });
  await expect(end).toBeVisible();
  return end;
}

async function setNumber(page: Page, label: string, value: string) {
  const field = page.getByRole('spinbutton', { name: label, exact: true });
  await field.fill(value);
  await field.press('Tab');
}

test.describe('Chat tab', () => {
  test.setTimeout(400_000);

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
    await expect(page.getByText(/^Loaded in \d+\.\d s$/)).toBeVisible(slow);

    await setNumber(page, 'Temperature', '0');
    await setNumber(page, 'Max tokens', '24');
    await page.getByLabel('Message').fill('Count with me');
    await page.getByRole('button', { name: 'Send' }).click();
    const answers = page.locator('lmtab-chat-message[data-role="assistant"]');
    const stats = answers.last().getByTestId('stats');
    await expect(stats).toContainText('finish: length (max tokens)', slow);
    await expect(stats).toContainText('24 tokens');
    await expect(stats).toContainText(/\d+\.\d tok\/s/);
    await expect(stats).toContainText(/\d+\.\d+ s to first token/);
    await page.screenshot({ path: testInfo.outputPath('chat.png') });
    await testInfo.attach('chat tab', { path: testInfo.outputPath('chat.png') });

    // No limit and some randomness: a long answer to stop, then to regenerate shorter. The seed
    // makes the draw repeatable: with it this answer runs past 600 tokens, so Stop always finds it
    // generating (a random one ended by itself after 15 tokens once in a few runs).
    await page.getByRole('spinbutton', { name: 'Max tokens', exact: true }).fill('');
    await page.getByRole('spinbutton', { name: 'Max tokens', exact: true }).press('Tab');
    await setNumber(page, 'Temperature', '1');
    await setNumber(page, 'Seed', String(longStorySeed));
    await page.getByLabel('Message').fill('Tell me a long story');
    await page.getByLabel('Message').press('Enter');
    await expect(answers).toHaveCount(2);
    // Stop as soon as the answer shows text: waited for in the page at each frame, since expect's
    // polling (up to a second between looks) let the whole story finish first on a loaded machine.
    await page.waitForFunction(
      () => {
        // The app nests its components in shadow roots: every element under `root`, theirs too.
        const deep = (root: ParentNode): Element[] =>
          [...root.querySelectorAll('*')].flatMap((el) => [
            el,
            ...(el.shadowRoot ? deep(el.shadowRoot) : []),
          ]);
        const inside = (el: Element) => [
          ...deep(el),
          ...(el.shadowRoot ? deep(el.shadowRoot) : []),
        ];
        const answer = deep(document)
          .filter((el) => el.matches('lmtab-chat-message[data-role="assistant"]'))
          .at(-1);
        const markdown = answer && inside(answer).find((el) => el.localName === 'lmtab-markdown');
        if (!markdown) return false;
        return /\S{3}/.test([markdown, ...inside(markdown)].map((el) => el.textContent).join(''));
      },
      undefined,
      { polling: 'raf', timeout: slow.timeout },
    );
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(answers.last().getByTestId('stats')).toContainText('stopped by you', slow);

    await setNumber(page, 'Max tokens', '6');
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await expect(answers.last().getByTestId('stats')).toContainText(/finish: (stop|length)/, slow);
    await expect(answers).toHaveCount(2);
    await expect(page.locator('lmtab-chat-message[data-role="user"]')).toHaveCount(2);
    expect(problems).toEqual([]);
  });

  test('answers render as sanitized markdown with copyable code', async ({
    page,
    context,
  }, testInfo) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const problems = watchConsole(page);
    await openApp(page);
    await expect(page.getByRole('button', { name: 'New chat', exact: true })).toBeVisible();
    const markdown = [
      '## Steps',
      '',
      '1. Install **lmtab** and *read* ~~nothing~~',
      '2. Run `npm start`',
      '   - then open the page',
      '',
      '```ts',
      'const answer = 42;',
      '```',
      '',
      'A [safe link](https://example.com/docs) and an [unsafe one](javascript:window.pwned=1).',
      '',
      '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>',
    ].join('\n');
    await page.evaluate(async (content) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('lmtab-chats');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const now = Date.now() + 1000;
      const conversation = {
        id: 'seeded',
        title: 'Markdown sample',
        renamed: true,
        createdAt: now,
        updatedAt: now,
        settings: {
          systemPrompt: '',
          temperature: 1,
          maxTokens: null,
          topP: 1,
          topK: 40,
          repeatPenalty: 1,
          stop: [],
        },
        turns: [
          { id: 'u', role: 'user', content: 'Show me some markdown' },
          {
            id: 'a',
            role: 'assistant',
            content,
            model: 'tiny-lfm2',
            stats: {
              tokens: 57,
              tokensPerSecond: 21.4,
              timeToFirstTokenMs: 420,
              totalMs: 3100,
              finishReason: 'stop',
            },
          },
        ],
      };
      await new Promise((resolve, reject) => {
        const tx = db.transaction('conversations', 'readwrite');
        tx.objectStore('conversations').put(conversation, conversation.id);
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
      });
    }, markdown);
    await page.reload();

    const answer = page.locator('lmtab-chat-message[data-role="assistant"] lmtab-markdown');
    await expect(answer.locator('h4')).toHaveText('Steps');
    await expect(answer.locator('ol > li')).toHaveCount(2);
    await expect(answer.locator('ol > li').first().locator('strong')).toHaveText('lmtab');
    await expect(answer.locator('ol > li').first().locator('em')).toHaveText('read');
    await expect(answer.locator('ol li ul > li')).toHaveText('then open the page');
    await expect(answer.locator('li code')).toHaveText('npm start');
    await expect(answer.locator('pre code')).toHaveText('const answer = 42;');
    const link = answer.getByRole('link', { name: 'safe link' });
    await expect(link).toHaveAttribute('href', 'https://example.com/docs');
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    await expect(answer.getByRole('link', { name: 'unsafe one' })).toHaveCount(0);
    await expect(answer).toContainText('<img src=x onerror="window.pwned=1"><script>');
    await expect(answer.locator('img, script')).toHaveCount(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();

    await answer.getByRole('button', { name: 'Copy code' }).click();
    await expect(answer.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const answer = 42;');
    await page.screenshot({ path: testInfo.outputPath('chat-markdown.png') });
    await testInfo.attach('markdown answer', { path: testInfo.outputPath('chat-markdown.png') });
    expect(problems).toEqual([]);
  });

  test('conversations are saved: new, rename and delete survive a reload', async ({ page }) => {
    const problems = watchConsole(page);
    await openApp(page);
    await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Chat');
    await page.getByRole('textbox', { name: 'System prompt' }).fill('Answer briefly.');
    await page.getByRole('textbox', { name: 'System prompt' }).press('Tab');
    await setNumber(page, 'Max tokens', '6');
    const answers = page.locator('lmtab-chat-message[data-role="assistant"]');
    const ask = async (text: string) => {
      await page.getByLabel('Message').fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(answers.last().getByTestId('stats')).toContainText('finish:', slow);
    };
    await ask('First question');
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await expect(answers).toHaveCount(0);
    await ask('Second question');

    const chats = page.getByRole('list', { name: 'Chats' });
    await chats.getByRole('button', { name: 'Rename Second question' }).click();
    await page.getByLabel('Conversation name').fill('Renamed chat');
    await page.getByLabel('Conversation name').press('Enter');
    await expect(chats.getByRole('button', { name: /^Renamed chat/ })).toBeVisible();

    await chats.getByRole('button', { name: 'Delete First question' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “First question”?' });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(chats.getByRole('button', { name: /^First question/ })).toBeVisible();
    await chats.getByRole('button', { name: 'Delete First question' }).click();
    await dialog.getByRole('button', { name: 'Delete chat' }).click();
    await expect(chats.getByRole('button', { name: /^First question/ })).toHaveCount(0);

    await page.reload();
    await expect(chats.getByRole('listitem')).toHaveCount(1);
    await chats.getByRole('button', { name: /^Renamed chat/ }).click();
    await expect(page.locator('lmtab-chat-message[data-role="user"]')).toHaveText(
      'Second question',
    );
    await expect(answers.getByTestId('stats')).toContainText(/finish: (stop|length)/);
    await expect(page.getByRole('textbox', { name: 'System prompt' })).toHaveValue(
      'Answer briefly.',
    );
    await expect(page.getByRole('spinbutton', { name: 'Max tokens', exact: true })).toHaveValue(
      '6',
    );
    expect(problems).toEqual([]);
  });

  test('images attach by upload, URL and drop, and show as thumbnails', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await openApp(page);
    const model = await importModel(page, 'tiny-lfm2-vl.gguf', 'mmproj-tiny-lfm2-vl.gguf');
    await openTab(page, 'Chat');
    await expect(page.getByLabel('Model', { exact: true })).toHaveValue(model);
    const image = await pngDataUri(page);

    await page.getByLabel('Attach images or audio').setInputFiles({
      name: 'square.png',
      mimeType: 'image/png',
      buffer: Buffer.from(image.split(',')[1]!, 'base64'),
    });
    await page.getByRole('button', { name: 'Image from URL' }).click();
    await page.getByLabel('Image URL').fill(await pngDataUri(page, 32, 32));
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const dataTransfer = await page.evaluateHandle(
      async (uri) => {
        const blob = await (await fetch(uri)).blob();
        const transfer = new DataTransfer();
        transfer.items.add(new File([blob], 'dropped.png', { type: 'image/png' }));
        return transfer;
      },
      await pngDataUri(page, 40, 40),
    );
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.dispatchEvent('dragover', { dataTransfer });
    await expect(page.getByText('Drop images or audio to attach')).toBeVisible();
    await conversation.dispatchEvent('drop', { dataTransfer });
    await expect(page.getByText('Drop images or audio to attach')).toBeHidden();
    await expect(page.getByRole('img', { name: /^Image \d to send$/ })).toHaveCount(3);

    await setNumber(page, 'Max tokens', '8');
    await page.getByLabel('Message').fill('What is in these pictures?');
    await page.getByRole('button', { name: 'Send' }).click();
    const sent = page.locator('lmtab-chat-message[data-role="user"]');
    await expect(sent.getByRole('img')).toHaveCount(3);
    await expect(sent.getByRole('img').first()).toHaveAccessibleName('Attached image 1 of 3');
    const answer = page.locator('lmtab-chat-message[data-role="assistant"]');
    const stats = answer.getByTestId('stats');
    // Three images through the projector on two shared cores take a while. A failure shows as an
    // alert instead of stats: wait for either, so it fails at once with the alert's text.
    await expect(stats.or(answer.getByRole('alert'))).toBeVisible({ timeout: 300_000 });
    await expect(answer.getByRole('alert')).toHaveCount(0);
    // The random-weight model may end at its first token; a finished answer has stats all the same.
    await expect(stats).toContainText('finish:');
    // Each image became projector tokens in the prompt (a text-only prompt is about 15).
    const promptTokens = Number(
      await stats.locator('[data-prompt-tokens]').getAttribute('data-prompt-tokens'),
    );
    expect(promptTokens).toBeGreaterThan(90);
    await page.screenshot({ path: testInfo.outputPath('chat-images.png') });
    await testInfo.attach('images in a message', { path: testInfo.outputPath('chat-images.png') });
    expect(problems).toEqual([]);
  });

  test('audio clips attach from a file and from the microphone, play back, and reach a model that hears', async ({
    page,
  }) => {
    const problems = watchConsole(page);
    await openApp(page);
    const model = await importModel(page, 'tiny-lfm2-audio.gguf', 'mmproj-tiny-lfm2-audio.gguf');
    await openTab(page, 'Chat');
    await expect(page.getByLabel('Model', { exact: true })).toHaveValue(model);
    await page.getByLabel('Attach images or audio').setInputFiles(fixture('tone-1s.wav'));
    await expect(page.getByLabel('Audio clip 1 to send')).toBeVisible();
    // The microphone (Chromium's fake device): recorded for a moment, attached as a WAV clip.
    await page.getByRole('button', { name: 'Record audio' }).click();
    await expect(page.getByRole('button', { name: 'Stop recording' })).toBeVisible();
    await page.waitForTimeout(1500);
    await page.getByRole('button', { name: 'Stop recording' }).click();
    await expect(page.getByLabel('Audio clip 2 to send')).toBeVisible();
    await setNumber(page, 'Max tokens', '4');
    await page.getByLabel('Message').fill('What do you hear?');
    await page.getByRole('button', { name: 'Send' }).click();
    const sent = page.locator('lmtab-chat-message[data-role="user"]');
    await expect(sent.getByLabel('Attached audio clip 1 of 2')).toBeVisible();
    await expect(sent.getByLabel('Attached audio clip 2 of 2')).toBeVisible();
    const answer = page.locator('lmtab-chat-message[data-role="assistant"]');
    const stats = answer.getByTestId('stats');
    await expect(stats.or(answer.getByRole('alert'))).toBeVisible({ timeout: 120_000 });
    await expect(answer.getByRole('alert')).toHaveCount(0);
    // Each clip became projector tokens in the prompt: Whisper's encoder reads a 30 s window, 750
    // tokens (the text alone is about 15).
    const promptTokens = Number(
      await stats.locator('[data-prompt-tokens]').getAttribute('data-prompt-tokens'),
    );
    expect(promptTokens).toBeGreaterThan(2 * 750);
    expect(problems).toEqual([]);
  });

  test('Talk holds a spoken conversation: each pause a turn, heard, written down and answered', async ({
    playwright,
    baseURL,
  }, testInfo) => {
    await withFakeMicrophone(playwright, baseURL, testInfo, {}, async (page) => {
      const problems = watchConsole(page);
      const end = await startTalk(page, 'tiny-lfm2-audio', 'audio');
      // The engine found the turn by its loudness: it appears with its clip, and is answered.
      const turn = page.locator('lmtab-chat-message[data-role="user"]').first();
      await expect(turn.getByLabel('Attached audio clip 1 of 1')).toBeVisible({ timeout: 60_000 });
      const answer = page.locator('lmtab-chat-message[data-role="assistant"]').first();
      await expect(answer).toBeVisible({ timeout: 60_000 });
      // The turn's transcript (written before the answer) and the answer's end.
      await expect(turn.locator('.text')).toBeVisible({ timeout: 90_000 });
      await expect(answer.locator('.foot')).toBeVisible({ timeout: 90_000 });
      // The next turns come every 6 s; the third is heard too (on a loaded machine the steps above
      // can take long enough for more to come first).
      await expect
        .poll(() => page.locator('lmtab-chat-message[data-role="user"]').count(), {
          timeout: 60_000,
        })
        .toBeGreaterThanOrEqual(3);
      await page.screenshot({ path: testInfo.outputPath('chat-voice.png') });
      await testInfo.attach('a voice conversation', {
        path: testInfo.outputPath('chat-voice.png'),
      });
      await end.click();
      await expect(page.getByRole('button', { name: 'Talk', exact: true })).toBeVisible();
      await expect(answer.getByRole('alert')).toHaveCount(0);
      // A model that only writes: its answers carry no audio.
      await expect(answer.getByLabel(/Attached audio clip/)).toHaveCount(0);
      // No notice: every turn the engine detected was taken (none refused as overlapping).
      await expect(page.locator('p.notice')).toHaveCount(0);
      // Typing goes on in the same conversation.
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
      expect(problems).toEqual([]);
    });
  });

  test('Talk with a model that speaks: its answer is written, played and kept as a clip', async ({
    playwright,
    baseURL,
  }, testInfo) => {
    // A turn comes every 6 s and cuts off the answer in progress: each turn's transcript, answer
    // and speech must fit between two (see hearingEngineSettings).
    const options = { engineSettings: hearingEngineSettings };
    await withFakeMicrophone(playwright, baseURL, testInfo, options, async (page) => {
      const problems = watchConsole(page);
      // Pocket TTS's projector holds a voice encoder (it hears) and the generator (it speaks).
      const end = await startTalk(page, 'tiny-pocket-tts', 'audio · speech');
      // An answer's text streams in (the transcript of what it says), then its audio comes. The
      // fixture answers every prompt with the same word; an answer cut off by the next turn has no
      // audio.
      const answer = page
        .locator('lmtab-chat-message[data-role="assistant"]')
        .filter({ has: page.getByLabel('Attached audio clip 1 of 1') })
        .first();
      await expect(answer).toBeVisible({ timeout: 120_000 });
      await expect(answer.locator('lmtab-markdown')).toBeVisible();
      await expect(answer.locator('lmtab-markdown')).toHaveText(speechAnswer);
      const clip = answer.getByLabel('Attached audio clip 1 of 1');
      // The clip is the answer spoken: a WAV of whole 80 ms frames at 24 kHz (the tiny Pocket TTS's).
      const wav = await clip.evaluate(async (audio: HTMLAudioElement) => {
        const bytes = new Uint8Array(await (await fetch(audio.src)).arrayBuffer());
        const view = new DataView(bytes.buffer);
        return { rate: view.getUint32(24, true), samples: (bytes.length - 44) / 2 };
      });
      expect(wav.rate).toBe(24_000);
      expect(wav.samples % 1920).toBe(0);
      expect(wav.samples).toBeGreaterThanOrEqual(25 * 1920);
      await end.click();
      await expect(page.getByRole('button', { name: 'Talk', exact: true })).toBeVisible();
      await expect(answer.getByRole('alert')).toHaveCount(0);
      expect(problems).toEqual([]);
    });
  });

  test('problems show inline: images for a text model, and a failed request', async ({ page }) => {
    await openApp(page);
    const model = await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Chat');
    await page.getByLabel('Attach images or audio').setInputFiles({
      name: 'square.png',
      mimeType: 'image/png',
      buffer: Buffer.from((await pngDataUri(page)).split(',')[1]!, 'base64'),
    });
    await expect(page.getByRole('alert')).toHaveText(
      `${model} has no vision projector, so it cannot read images. Choose a vision model, or remove the images.`,
    );
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await page.getByRole('button', { name: 'Remove image 1' }).click();
    await expect(page.getByRole('alert')).toHaveCount(0);

    // The model disappears behind the page's back (another tab deleted it).
    await page.evaluate(
      (model) =>
        fetch('/api/delete', {
          method: 'DELETE',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ model }),
        }),
      model,
    );
    await page.getByLabel('Message').fill('Hello?');
    await page.getByRole('button', { name: 'Send' }).click();
    const alert = page.locator('lmtab-chat-message[data-role="assistant"]').getByRole('alert');
    await expect(alert).toContainText(`Model "${model}"`);
    await expect(alert).toContainText('no models are stored yet');
    // The code travels with the message.
    await expect(alert).toContainText('(model_not_found)');
  });
});
