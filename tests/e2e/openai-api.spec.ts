import { expect, test as base } from '@playwright/test';
import { installOpenAi, oneAppPage, pngDataUri } from './support/app.js';

// One page and engine serve the file: each test's requests end before the next begins.
const { test, importOnce } = oneAppPage(base);

test.describe('OpenAI SDK in the page, through the service worker', () => {
  test.beforeEach(async ({ page }) => {
    await installOpenAi(page);
  });

  test('answers a chat completion', { tag: '@smoke' }, async ({ page }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const answer = await page.evaluate(async (model) => {
      const client = window.openai;
      return client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Hello there' }],
        max_tokens: 12,
        temperature: 0,
      });
    }, model);
    expect(answer.object).toBe('chat.completion');
    expect(answer.id).toMatch(/^chatcmpl-/);
    expect(answer.model).toBe(model);
    expect(typeof answer.created).toBe('number');
    expect(answer.choices[0].message.role).toBe('assistant');
    expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(answer.choices[0].finish_reason);
    expect(answer.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(answer.usage?.total_tokens).toBe(
      (answer.usage?.prompt_tokens ?? 0) + (answer.usage?.completion_tokens ?? 0),
    );
  });

  test('usage counts the whole prompt when the engine reuses its prompt cache', async ({
    page,
  }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const [first, again] = await page.evaluate(async (model) => {
      const ask = () =>
        window.openai.chat.completions.create({
          model,
          messages: [
            { role: 'system', content: 'You answer in one short sentence.' },
            { role: 'user', content: 'Name three colours of the sea at dawn.' },
          ],
          max_tokens: 4,
          temperature: 0,
        });
      const first = await ask();
      return [first.usage, (await ask()).usage];
    }, model);
    // The same conversation again: llama.cpp reuses most of it from the slot's cache (LFM2's
    // convolution state rolls back only to a checkpoint, so 72 of 76 tokens here), and only the
    // cached part changes.
    const whole = first?.prompt_tokens ?? 0;
    expect(whole).toBeGreaterThan(10);
    expect(first?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(again?.prompt_tokens).toBe(whole);
    expect(again?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(whole / 2);
    expect(again?.prompt_tokens_details?.cached_tokens).toBeLessThan(whole);
  });

  test('answers more concurrent requests than the engine has parallel slots', async ({ page }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    // Four slots: wllama 3.8.1 alone never answered the fifth of five requests sent together.
    const answers = await page.evaluate(async (model) => {
      const ask = async (i: number) => {
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content: `Question ${i}` }],
            max_tokens: 4,
            ignore_eos: true,
          }),
        });
        const body = (await response.json()) as { usage: { completion_tokens: number } };
        return body.usage.completion_tokens;
      };
      return Promise.all([0, 1, 2, 3, 4, 5].map(ask));
    }, model);
    expect(answers).toEqual([4, 4, 4, 4, 4, 4]);
  });

  test('streams a chat completion ending with [DONE]', { tag: '@smoke' }, async ({ page }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(async (model) => {
      const client = window.openai;
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Tell me a story' }],
        max_tokens: 16,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      });
      const deltas: string[] = [];
      let finish: string | null = null;
      let usage = null;
      let role = '';
      for await (const chunk of stream) {
        role ||= chunk.choices[0]?.delta.role ?? '';
        if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
        finish = chunk.choices[0]?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      const raw = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model,
          messages: [{ role: 'user', content: 'Hi' }],
          max_tokens: 4,
          stream: true,
        }),
      });
      return {
        deltas,
        finish,
        usage,
        role,
        contentType: raw.headers.get('content-type'),
        rawText: await raw.text(),
      };
    }, model);
    expect(result.deltas.length).toBeGreaterThan(1);
    expect(result.role).toBe('assistant');
    expect(['stop', 'length']).toContain(result.finish);
    expect(result.usage).toMatchObject({
      completion_tokens: expect.any(Number),
      prompt_tokens: expect.any(Number),
    });
    expect(result.contentType).toContain('text/event-stream');
    expect(result.rawText.startsWith('data: {')).toBe(true);
    expect(result.rawText.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  test('max_tokens ends with finish_reason "length", and stop ends before the stop text', async ({
    page,
  }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(async (model) => {
      const client = window.openai;
      const ask = (extra: object) =>
        client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Count with me' }],
          temperature: 0,
          seed: 7,
          ...extra,
        });
      const long = await ask({ max_tokens: 24 });
      const text = long.choices[0].message.content ?? '';
      // A stop string taken from the middle of the greedy answer must cut it right there.
      const stop = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 2);
      const stopped = await ask({ max_tokens: 24, stop: [stop, 'never-appears'] });
      return { long, text, stop, stopped };
    }, model);
    expect(result.long.choices[0].finish_reason).toBe('length');
    expect(result.long.usage?.completion_tokens).toBe(24);
    expect(result.stop.length).toBe(2);
    expect(result.stopped.choices[0].finish_reason).toBe('stop');
    expect(result.stopped.choices[0].message.content).toBe(
      result.text.slice(0, result.text.indexOf(result.stop)),
    );
  });

  test('a long answer from a byte-level vocabulary stays valid UTF-8 to the end', async ({
    page,
  }) => {
    // 3,000 tokens through the grammar on two cores: well over a minute when the machine is busy.
    test.setTimeout(240_000);
    // Random weights pick lone byte tokens often; before the UTF-8 guard, wllama threw on the first
    // malformed piece (every few hundred tokens) and the answer ended in "engine_failure".
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const answers = await page.evaluate(async (model) => {
      const ask = () =>
        window.openai.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Write a long story' }],
          // Two answers share the 4,096-token context of the parallel slots.
          max_tokens: 1500,
          ignore_eos: true,
        } as never);
      const results = await Promise.all([ask(), ask()]);
      return results.map((r) => ({
        finish: r.choices[0].finish_reason,
        tokens: r.usage?.completion_tokens,
        bytes: new TextEncoder().encode(r.choices[0].message.content ?? '').length,
      }));
    }, model);
    for (const answer of answers) {
      expect(answer).toMatchObject({ finish: 'length', tokens: 1500 });
      expect(answer.bytes).toBeGreaterThan(500);
    }
  });

  test('answers that outgrow the shared context get a 400 that says how to make room', async ({
    page,
  }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    // One answer may use the whole context; two of 3,000 tokens cannot both fit in 4,096.
    const results = await page.evaluate(async (model) => {
      const ask = async () => {
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content: 'Write forever' }],
            max_tokens: 3000,
            ignore_eos: true,
          }),
        });
        return { status: response.status, body: await response.json() };
      };
      return Promise.all([ask(), ask()]);
    }, model);
    const refused = results.filter((r) => r.status === 400);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.body.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'max_tokens',
    });
    expect(refused[0]!.body.error.message).toContain(
      'The context is full: tiny-lfm2 is loaded with 4,096 tokens of context, shared by its 4 parallel slots',
    );
    for (const result of results.filter((r) => r.status !== 400)) expect(result.status).toBe(200);
  });

  test('an aborted stream stops generating, frees its slot, and the next request works', async ({
    page,
  }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(async (model) => {
      const client = window.openai;
      const activeSlots = async () => {
        const engine = await (await fetch('/api/lmtab/engine')).json();
        return engine.loaded[0]?.active as number;
      };
      const controller = new AbortController();
      const body = {
        model,
        messages: [{ role: 'user' as const, content: 'Go on forever' }],
        max_tokens: 3500,
        temperature: 0.9,
        // llama-server's field, which the SDK passes along: a random draw may end by itself
        // within three tokens, and this answer must not.
        ignore_eos: true,
        stream: true as const,
      };
      const stream = await client.chat.completions.create(body, { signal: controller.signal });
      let received = 0;
      let activeDuring = 0;
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) received += 1;
        if (received === 3) {
          activeDuring = await activeSlots();
          controller.abort();
        }
      }
      // The engine lets go of the slot as soon as it sees the abort, long before 3500 tokens.
      let activeAfter = await activeSlots();
      for (let i = 0; i < 20 && activeAfter > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        activeAfter = await activeSlots();
      }
      const next = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Still there?' }],
        max_tokens: 6,
        temperature: 0,
      });
      return {
        received,
        activeDuring,
        activeAfter,
        aborted: controller.signal.aborted,
        next: next.choices[0],
      };
    }, model);
    expect(result.aborted).toBe(true);
    // A token already in flight when the abort was sent may still arrive; thousands may not.
    expect(result.received).toBeGreaterThanOrEqual(3);
    expect(result.received).toBeLessThan(20);
    expect(result.activeDuring).toBe(1);
    expect(result.activeAfter).toBe(0);
    expect(result.next.finish_reason).toBe('length');
    expect(result.next.message.content?.length).toBeGreaterThan(0);
  });

  test('two concurrent streams are decoded together', async ({ page }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(async (model) => {
      const client = window.openai;
      const run = async (prompt: string) => {
        const times: number[] = [];
        const stream = await client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: prompt }],
          // Each runs its full length (llama-server's ignore_eos, which the SDK does not type): 48
          // greedy tokens were sometimes over before the other stream began, on a loaded machine.
          max_tokens: 160,
          ...({ ignore_eos: true } as object),
          temperature: 0,
          stream: true,
        });
        let text = '';
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta.content;
          if (delta) {
            text += delta;
            times.push(performance.now());
          }
        }
        return { text, first: times[0], last: times.at(-1)! };
      };
      return Promise.all([run('First question'), run('Second question')]);
    }, model);
    const [a, b] = result;
    expect(a.text.length).toBeGreaterThan(0);
    expect(b.text.length).toBeGreaterThan(0);
    // Interleaved: each stream produced its first token before the other finished.
    expect(b.first).toBeLessThan(a.last);
    expect(a.first).toBeLessThan(b.last);
  });

  test('answers about an image with the vision fixture', async ({ page }) => {
    const model = await importOnce(page, 'tiny-lfm2-vl.gguf', 'mmproj-tiny-lfm2-vl.gguf');
    const image = await pngDataUri(page);
    const withImage = await page.evaluate(
      async ([model, image]) => {
        const client = window.openai;
        const ask = (content: never) =>
          client.chat.completions.create({
            model,
            messages: [{ role: 'user', content }],
            max_tokens: 8,
            // Greedy: sampled, the random weights can pick 8 tokens that print nothing (seen once).
            temperature: 0,
          });
        const textOnly = await ask('What is in this picture?' as never);
        const vision = await ask([
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: image } },
        ] as never);
        return { textOnly, vision };
      },
      [model, image] as const,
    );
    expect(withImage.vision.choices[0].message.content?.length).toBeGreaterThan(0);
    // The image became tokens: the prompt grew by the projector's image tokens.
    expect(
      withImage.vision.usage!.prompt_tokens - withImage.textOnly.usage!.prompt_tokens,
    ).toBeGreaterThan(30);
  });

  test('runs the mixture-of-experts fixture', async ({ page }) => {
    const model = await importOnce(page, 'tiny-lfm2moe.gguf');
    const answer = await page.evaluate(async (model) => {
      const client = window.openai;
      return client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 8,
      });
    }, model);
    expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
  });

  test('lists models and answers raw completions', async ({ page }) => {
    const model = await importOnce(page, 'tiny-lfm2.gguf');
    const result = await page.evaluate(async (model) => {
      const client = window.openai;
      const list = await client.models.list();
      const one = await client.models.retrieve(model);
      const completion = await client.completions.create({
        model,
        prompt: 'Once upon a time',
        max_tokens: 6,
        temperature: 0,
      });
      return { ids: list.data.map((m) => m.id), one, completion };
    }, model);
    expect(result.ids).toContain(model);
    expect(result.one).toMatchObject({ id: model, object: 'model', owned_by: 'lmtab' });
    expect(result.completion.object).toBe('text_completion');
    expect(result.completion.choices[0].text.length).toBeGreaterThan(0);
  });
});
