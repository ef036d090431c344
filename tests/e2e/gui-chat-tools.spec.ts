import { type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import Ajv from 'ajv';
import { importModel, openApp, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';

/** Puts a conversation into the Chat tab's IndexedDB, as an older or newer app saved it. */
async function seedConversation(page: Page, conversation: Record<string, unknown>) {
  await page.evaluate(async (saved) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('lmtab-chats');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    await new Promise((resolve, reject) => {
      const tx = db.transaction('conversations', 'readwrite');
      tx.objectStore('conversations').put(saved, saved.id as string);
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
  }, conversation);
}

test.describe('Chat tab: thinking, tool calls and structured output', () => {
  test('saved answers show thinking, tool-call cards and JSON; pending calls get a result composer', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await openApp(page);
    await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Chat');
    const now = Date.now() + 1000;
    // Settings as saved before Structured output and Tools existed: they take the defaults.
    await seedConversation(page, {
      id: 'tools',
      title: 'Weather',
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
        { id: 'u1', role: 'user', content: 'What is the weather in Paris?' },
        {
          id: 'a1',
          role: 'assistant',
          model: 'tiny-lfm2',
          content: '',
          reasoning: 'The person wants the weather. I should call get_weather for Paris.',
          toolCalls: [
            {
              id: 'call_1',
              name: 'get_weather',
              arguments: '{"city":"Paris","unit":"celsius"}',
              result: '{"temperature":21,"sky":"clear"}',
            },
          ],
          stats: {
            tokens: 18,
            tokensPerSecond: 20,
            timeToFirstTokenMs: 300,
            totalMs: 1200,
            finishReason: 'tool_calls',
          },
        },
        {
          id: 'a2',
          role: 'assistant',
          model: 'tiny-lfm2',
          json: true,
          content: '{"city":"Paris","temperature":21,"sky":"clear"}',
        },
        { id: 'u2', role: 'user', content: 'And Rome, and the time?' },
        {
          id: 'a3',
          role: 'assistant',
          model: 'tiny-lfm2',
          content: 'Let me look both up.',
          toolCalls: [
            { id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
            { id: 'call_3', name: 'get_time', arguments: '{}' },
          ],
        },
      ],
    });
    await page.reload();
    await page
      .getByRole('list', { name: 'Chats' })
      .getByRole('button', { name: /^Weather/ })
      .click();

    const answers = page.locator('lmtab-chat-message[data-role="assistant"]');
    const thinking = answers.first().locator('lmtab-thinking-block');
    await expect(thinking.getByText('Thoughts')).toBeVisible();
    await expect(thinking.getByTestId('reasoning')).toBeHidden();
    await thinking.getByText('Thoughts').click();
    await expect(thinking.getByTestId('reasoning')).toHaveText(
      'The person wants the weather. I should call get_weather for Paris.',
    );
    await expect(answers.first().getByTestId('stats')).toContainText('finish: tool_calls');

    const card = answers.first().locator('lmtab-tool-call-card');
    await expect(card.locator('summary')).toContainText('get_weather');
    await expect(card.locator('summary')).toContainText('answered');
    await card.locator('summary').click();
    await expect(card.getByTestId('tool-arguments')).toHaveText(
      '{\n  "city": "Paris",\n  "unit": "celsius"\n}',
    );
    await expect(card.getByTestId('tool-result')).toHaveText(
      '{\n  "temperature": 21,\n  "sky": "clear"\n}',
    );

    await expect(answers.nth(1).locator('pre code')).toHaveText(
      '{\n  "city": "Paris",\n  "temperature": 21,\n  "sky": "clear"\n}',
    );
    await expect(answers.nth(1).locator('.code-head')).toContainText('json');

    const pending = answers.last().locator('lmtab-tool-call-card');
    await expect(pending).toHaveCount(2);
    await expect(pending.first().locator('summary')).toContainText('waiting for a result');
    const results = page.locator('lmtab-tool-results');
    await expect(results.getByRole('heading')).toHaveText(
      'The model called 2 functions. Type what each returned:',
    );
    await expect(results.getByText('get_weather({"city":"Rome"})')).toBeVisible();
    await results.getByLabel('Result of get_weather').fill('{"temperature": 25}');
    await results.getByRole('button', { name: 'Send results' }).click();
    await expect(results.getByRole('alert')).toHaveText('Give every call a result.');
    await page.screenshot({ path: testInfo.outputPath('chat-tools.png') });
    await testInfo.attach('tool calls and thinking', {
      path: testInfo.outputPath('chat-tools.png'),
    });
    expect(problems).toEqual([]);
  });

  test('the Structured output editor checks the schema as you type and an invalid one cannot be sent', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await openApp(page);
    await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Chat');
    const settings = page.locator('lmtab-chat-settings');
    const toggle = settings.getByRole('switch', { name: 'Structured output' });
    await expect(toggle).not.toBeChecked();
    await expect(settings.getByRole('textbox', { name: 'JSON Schema' })).toHaveCount(0);
    await toggle.check();
    const editor = settings.getByRole('textbox', { name: 'JSON Schema' });
    await expect(editor).toHaveValue(/"required": \["answer", "confidence"\]/);
    await expect(settings.getByTestId('json-valid')).toHaveText('✓ Valid JSON Schema');

    const send = page.getByRole('button', { name: 'Send' });
    await page.getByLabel('Message').fill('Rate lmtab');
    await expect(send).toBeEnabled();

    await editor.fill('{"type": "object", "properties": {"age": ');
    await expect(settings.getByTestId('json-error')).toContainText('Not valid JSON:');
    await expect(editor).toHaveAttribute('aria-invalid', 'true');
    await expect(send).toBeDisabled();
    await expect(page.locator('lmtab-chat-composer').getByRole('alert')).toContainText(
      'Structured output: Not valid JSON:',
    );

    await editor.fill('{"type": "object", "properties": {"age": {"type": "int"}}}');
    await expect(settings.getByTestId('json-error')).toHaveText(
      '/properties/age/type: expected one of string, number, integer, boolean, object, array, null (or a list of them), got the string "int".',
    );
    await expect(send).toBeDisabled();
    await page.screenshot({ path: testInfo.outputPath('structured-output-invalid.png') });
    await testInfo.attach('invalid schema', {
      path: testInfo.outputPath('structured-output-invalid.png'),
    });

    await editor.fill(
      '{"type":"object","properties":{"age":{"type":"integer"}},"required":["age"]}',
    );
    await expect(settings.getByTestId('json-valid')).toBeVisible();
    await settings.getByRole('button', { name: 'Format' }).click();
    await expect(editor).toHaveValue(
      '{\n  "type": "object",\n  "properties": {\n    "age": {\n      "type": "integer"\n    }\n  },\n  "required": [\n    "age"\n  ]\n}',
    );
    await expect(send).toBeEnabled();

    // The schema and the switch are saved with the conversation.
    await page.reload();
    await expect(settings.getByRole('switch', { name: 'Structured output' })).toBeChecked();
    await expect(settings.getByRole('textbox', { name: 'JSON Schema' })).toHaveValue(
      /"required": \[\n {4}"age"\n {2}\]/,
    );
    await page.screenshot({ path: testInfo.outputPath('structured-output.png') });
    await testInfo.attach('structured output', {
      path: testInfo.outputPath('structured-output.png'),
    });
    expect(problems).toEqual([]);
  });
});

/** Generation on two shared cores can be slow: waits for answers allow for it. */
const slow = { timeout: 150_000 };

/** Sets a numeric chat setting the way a person does: type, then leave the field. */
async function setNumber(page: Page, label: string, value: string) {
  const field = page.getByRole('spinbutton', { name: label, exact: true });
  await field.fill(value);
  await field.press('Tab');
}

/** Replaces a JSON editor's text the way a person does: type, then leave the field. */
async function setJson(page: Page, label: string, value: string) {
  const editor = page.getByRole('textbox', { name: label, exact: true });
  await editor.fill(value);
  await editor.press('Tab');
}

test.describe('Chat tab with the engine: structured output, tool calls and thinking', () => {
  test.setTimeout(600_000);

  test('a Structured output answer is JSON valid against the schema', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await openApp(page);
    const model = await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Chat');
    await expect(page.getByLabel('Model', { exact: true })).toHaveValue(model);
    const schema = {
      type: 'object',
      properties: {
        color: { enum: ['red', 'green', 'blue'] },
        ok: { type: 'boolean' },
        name: { type: 'string', maxLength: 12 },
      },
      required: ['color', 'ok', 'name'],
      additionalProperties: false,
    };
    await page.getByRole('switch', { name: 'Structured output' }).check();
    await setJson(page, 'JSON Schema', JSON.stringify(schema));
    const requests: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/chat/completions')) requests.push(r.postDataJSON());
    });
    await page.getByLabel('Message').fill('Describe a flag as JSON');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('lmtab-chat-message[data-role="assistant"]').last();
    await expect(answer.getByTestId('stats')).toContainText('finish: stop', slow);
    expect(requests.at(-1)).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { schema, strict: true } },
    });
    const shown = await answer.locator('pre code').textContent();
    const value: unknown = JSON.parse(shown ?? '');
    const validate = new Ajv().compile(schema);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    // Shown formatted: two-space indents, one property per line.
    expect(shown).toBe(JSON.stringify(value, null, 2));
    await page.screenshot({ path: testInfo.outputPath('structured-answer.png') });
    await testInfo.attach('structured answer', {
      path: testInfo.outputPath('structured-answer.png'),
    });
    expect(problems).toEqual([]);
  });

  test('tools: a required call shows as a card, its typed result goes back, and the model answers', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await openApp(page);
    await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Chat');
    // Greedy: at temperature 1 the random weights may spend their tokens on the whitespace the
    // arguments' grammar allows between tokens.
    await setNumber(page, 'Temperature', '0');
    await page.getByRole('switch', { name: 'Offer tools' }).check();
    await page.getByLabel('Tool choice').selectOption('required');
    const parameters = {
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'Rome', 'Oslo'] } },
      required: ['city'],
      additionalProperties: false,
    };
    await setJson(
      page,
      'Tool definitions',
      JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters } }]),
    );
    const requests: Array<Record<string, unknown>> = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/chat/completions')) requests.push(r.postDataJSON());
    });
    await page.getByLabel('Message').fill('What is the weather in Paris?');
    await page.getByRole('button', { name: 'Send' }).click();
    const answers = page.locator('lmtab-chat-message[data-role="assistant"]');
    // A forced call builds its grammar from the tool's schema first: on two shared cores the first
    // answer took from 1.5 to over 2.5 minutes.
    await expect(answers.first().getByTestId('stats')).toContainText('finish: tool_calls', {
      timeout: 300_000,
    });
    expect(requests[0]).toMatchObject({ tool_choice: 'required', tools: [{ type: 'function' }] });
    const card = answers.first().locator('lmtab-tool-call-card').first();
    await expect(card.locator('summary')).toContainText('get_weather');
    await expect(card.locator('summary')).toContainText('waiting for a result');
    await card.locator('summary').click();
    const args: unknown = JSON.parse(
      (await card.getByTestId('tool-arguments').textContent()) ?? '',
    );
    const validate = new Ajv().compile(parameters);
    expect(validate(args), JSON.stringify(validate.errors)).toBe(true);

    // The answer after the result: no more calls, a short text.
    await page.getByLabel('Tool choice').selectOption('none');
    await setNumber(page, 'Max tokens', '8');
    const calls = await answers.first().locator('lmtab-tool-call-card').count();
    const results = page.locator('lmtab-tool-results');
    for (let i = 0; i < calls; i++) {
      await results
        .getByRole('textbox')
        .nth(i)
        .fill(`{"temperature": ${20 + i}}`);
    }
    await results
      .getByRole('button', { name: calls === 1 ? 'Send result' : 'Send results' })
      .click();
    await expect(answers).toHaveCount(2);
    await expect(answers.last().getByTestId('stats')).toContainText(/finish: (stop|length)/, slow);
    await expect(results).toHaveCount(0);
    await expect(card.getByTestId('tool-result')).toHaveText('{\n  "temperature": 20\n}');
    const messages = requests[1]?.messages as Array<Record<string, unknown>>;
    const assistant = messages.find((m) => m.role === 'assistant');
    const tool = messages.find((m) => m.role === 'tool');
    expect(assistant).toMatchObject({
      tool_calls: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    expect(tool).toEqual({
      role: 'tool',
      tool_call_id: (assistant?.tool_calls as Array<{ id: string }>)[0]!.id,
      content: '{"temperature": 20}',
    });
    expect(requests[1]).toMatchObject({ tool_choice: 'none' });
    await page.screenshot({ path: testInfo.outputPath('tool-round-trip.png') });
    await testInfo.attach('tool round trip', { path: testInfo.outputPath('tool-round-trip.png') });
    expect(problems).toEqual([]);
  });

  test('a thinking model’s reasoning streams into a collapsible Thinking block', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await openApp(page);
    await importModel(page, 'tiny-lfm2-thinking.gguf');
    await openTab(page, 'Chat');
    // The template opens <think>. Sampled, the random weights sometimes close it and end within a
    // few tokens (seen once in CI: 6 tokens, "finish: stop"). Greedy, they never do on this
    // fixture and prompt: the model thinks until stopped, so the block is seen while it streams.
    await setNumber(page, 'Temperature', '0');
    await page.getByLabel('Message').fill('Think about the sky');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('lmtab-chat-message[data-role="assistant"]').last();
    const block = answer.locator('lmtab-thinking-block');
    await expect(block.getByText('Thinking…')).toBeVisible(slow);
    await expect(block.getByTestId('reasoning')).toHaveText(/\S/);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(answer.getByTestId('stats')).toContainText('stopped by you', slow);
    await expect(block.getByText('Thoughts')).toBeVisible();
    await expect(block.getByTestId('reasoning')).toBeHidden();
    await block.getByText('Thoughts').click();
    await expect(block.getByTestId('reasoning')).toHaveText(/\S/);
    // Reasoning stays out of the answer text.
    expect(await answer.locator('lmtab-markdown').count()).toBeLessThanOrEqual(1);
    if ((await answer.locator('lmtab-markdown').count()) === 1) {
      await expect(answer.locator('lmtab-markdown')).not.toContainText('<think>');
    }
    await page.screenshot({ path: testInfo.outputPath('thinking.png') });
    await testInfo.attach('thinking', { path: testInfo.outputPath('thinking.png') });
    expect(problems).toEqual([]);
  });
});
