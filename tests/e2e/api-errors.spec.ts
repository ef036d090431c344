import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { importModel, installOpenAi, openApp } from './support/app.js';

interface Answer {
  status: number;
  body: { error?: { message: string; type: string; param: string | null; code: string } };
}

test.describe('bad input gets a clear OpenAI-shaped error with the right status', () => {
  // One page for the file: each test sends a request that must be refused, which changes nothing
  // a later test reads, so the app is opened and the model imported once (a fresh page per test
  // spent about 7 s of each test's 8 on that).
  test.describe.configure({ mode: 'serial' });
  let model = '';
  let shared: BrowserContext;
  let page: Page;

  test.beforeAll(async ({ browser, baseURL }) => {
    shared = await browser.newContext({ baseURL });
    page = await shared.newPage();
    await openApp(page);
    model = await importModel(page, 'tiny-lfm2.gguf');
  });

  test.afterAll(async () => {
    await shared?.close();
  });

  const post = (page: Page, body: string, path = '/v1/chat/completions') =>
    page.evaluate(
      async ([path, body]) => {
        const response = await fetch(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        return { status: response.status, body: await response.json() } as Answer;
      },
      [path, body] as const,
    );

  test('malformed JSON is a 400 that shows what arrived', async () => {
    const answer = await post(page, '{"model": "x", "messages": [');
    expect(answer.status).toBe(400);
    expect(answer.body.error?.type).toBe('invalid_request_error');
    expect(answer.body.error?.message).toMatch(/JSON/);
  });

  test('a missing field names the field', async () => {
    const answer = await post(page, JSON.stringify({ model }));
    expect(answer.status).toBe(400);
    expect(answer.body.error?.param).toBe('messages');
    expect(answer.body.error?.message).toMatch(/messages/);
  });

  test('a mistyped field says what was expected and what arrived', async () => {
    const answer = await post(
      page,
      JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error?.param).toBe('temperature');
    expect(answer.body.error?.message).toMatch(/number/);
    expect(answer.body.error?.message).toMatch(/hot|string/);
  });

  test('an unknown model is a 404 model_not_found', async () => {
    await installOpenAi(page);
    const error = await page.evaluate(async () => {
      const client = window.openai;
      try {
        await client.chat.completions.create({
          model: 'no-such-model',
          messages: [{ role: 'user', content: 'hi' }],
        });
        return null;
      } catch (e) {
        const err = e as {
          status: number;
          code: string;
          param: string;
          message: string;
          constructor: { name: string };
        };
        return {
          status: err.status,
          code: err.code,
          param: err.param,
          message: err.message,
          name: err.constructor.name,
        };
      }
    });
    expect(error).toMatchObject({
      status: 404,
      code: 'model_not_found',
      param: 'model',
      name: 'NotFoundError',
    });
    expect(error?.message).toContain('no-such-model');
  });

  test('an image that cannot be read is a 400', async () => {
    const vlModel = await importModel(page, 'tiny-lfm2-vl.gguf', 'mmproj-tiny-lfm2-vl.gguf');
    const garbage = `data:image/png;base64,${Buffer.from('this is not a png at all').toString('base64')}`;
    const answer = await post(
      page,
      JSON.stringify({
        model: vlModel,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: garbage } }] }],
      }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toMatch(/image/i);
  });

  test('an image for a model without a projector is a 400 naming the model', async () => {
    const answer = await post(
      page,
      JSON.stringify({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
      }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain(model);
    expect(answer.body.error?.message).toMatch(/projector/i);
  });

  test('a body over the size limit is a 413', async () => {
    const answer = await page.evaluate(async (model) => {
      const big = 'x'.repeat(33 * 1024 * 1024);
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: big }] }),
      });
      return { status: response.status, body: await response.json() } as Answer;
    }, model);
    expect(answer.status).toBe(413);
    expect(answer.body.error?.message).toMatch(/limit|MiB|bytes/i);
  });

  test('an unknown path is a 404', async () => {
    const answer = await page.evaluate(async () => {
      const response = await fetch('/v1/no/such/path');
      return { status: response.status, body: await response.json() } as Answer;
    });
    expect(answer.status).toBe(404);
    expect(answer.body.error?.message).toContain('/v1/no/such/path');
  });
});
