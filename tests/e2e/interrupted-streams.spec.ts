import Anthropic from '@anthropic-ai/sdk';
import { expect, test, type Page } from '@playwright/test';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { importModel, openApp } from './support/app.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// Two models, so that each cut stream is followed by a request that must unload the one it held.
const models = ['tiny-lfm2', 'tiny-lfm2moe'] as const;
const prompt = 'Tell me a very long story about the sea.';
// Long enough that no answer ends before it is cut (greedy random weights rarely pick the end).
const long = 2000;

/** Each surface's streamed request, as its clients send it. */
function streamBody(surface: Surface, model: string): { path: string; body: object } {
  const messages = [{ role: 'user', content: prompt }];
  switch (surface) {
    case 'chat':
      return {
        path: '/v1/chat/completions',
        body: { model, messages, max_tokens: long, temperature: 0, stream: true },
      };
    case 'completions':
      return {
        path: '/v1/completions',
        body: { model, prompt, max_tokens: long, temperature: 0, stream: true },
      };
    case 'responses':
      return {
        path: '/v1/responses',
        body: { model, input: prompt, max_output_tokens: long, temperature: 0, stream: true },
      };
    case 'messages':
      return {
        path: '/v1/messages',
        body: { model, messages, max_tokens: long, temperature: 0, stream: true },
      };
    case 'ollama-chat':
      return {
        path: '/api/chat',
        body: { model, messages, options: { num_predict: long, temperature: 0 } },
      };
    case 'ollama-generate':
      return {
        path: '/api/generate',
        body: { model, prompt, options: { num_predict: long, temperature: 0 } },
      };
  }
}

const surfaces = [
  'chat',
  'completions',
  'responses',
  'messages',
  'ollama-chat',
  'ollama-generate',
] as const;
type Surface = (typeof surfaces)[number];

interface EngineState {
  loaded: { model: string; active: number }[];
}

test.describe('streams cut mid-answer free the engine, in the page through the service worker', () => {
  test.describe.configure({ timeout: 240_000 });

  test('two streams of each kind cut after a few events; the other model answers next', async ({
    page,
  }) => {
    await openApp(page);
    for (const model of models) await importModel(page, `${model}.gguf`);
    for (const [i, surface] of surfaces.entries()) {
      const held = models[i % 2]!;
      const next = models[(i + 1) % 2]!;
      const cut = await cutInPage(page, streamBody(surface, held));
      // Each stream was still going when it was cut: no final event among what was read.
      for (const text of cut) {
        expect(text, surface).not.toMatch(
          /\[DONE\]|response\.completed|message_stop|"done":\s*true/,
        );
      }
      const answer = await page.evaluate(async (model) => {
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content: 'Hi' }],
            max_tokens: 3,
          }),
          signal: AbortSignal.timeout(60_000),
        });
        return { status: response.status, body: await response.json() };
      }, next);
      expect(answer.status, `${surface}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect(answer.body.model).toBe(next);
      const engine = await page.evaluate(
        async () => (await (await fetch('/api/lmtab/engine')).json()) as EngineState,
      );
      expect(engine.loaded, surface).toEqual([expect.objectContaining({ model: next, active: 0 })]);
    }
  });
});

/** Opens two streams of one request in the page, reads four chunks of each, then aborts both. */
function cutInPage(page: Page, { path, body }: { path: string; body: object }): Promise<string[]> {
  return page.evaluate(
    async ([path, body]) => {
      const one = async () => {
        const controller = new AbortController();
        const response = await fetch(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          signal: controller.signal,
        });
        if (response.status !== 200) return `status ${response.status}: ${await response.text()}`;
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        for (let i = 0; i < 4; i++) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        controller.abort();
        return text;
      };
      return Promise.all([one(), one()]);
    },
    [path, body] as const,
  );
}

test.describe
  .serial('streams cut mid-answer free the engine, through the relay with Node clients', () => {
  test.describe.configure({ timeout: 240_000 });
  let relay: Relay;
  let tab: EngineTab;

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(testPorts.relayInterrupt);
    tab = await openEngineTab(
      browser,
      relay,
      models.map((model) => ({ file: `${model}.gguf` })),
    );
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test('two streams of each kind left after a few events; the other model answers next', async () => {
    const openai = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any', maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: relay.url, apiKey: 'any', maxRetries: 0 });
    const ollama = new Ollama({ host: relay.url });
    /** Reads `events` until four arrived, then leaves (the client aborts its request). */
    const leave = async (events: AsyncIterable<unknown>, abort?: () => void) => {
      const seen: unknown[] = [];
      for await (const event of events) {
        seen.push(event);
        if (seen.length === 4) break;
      }
      abort?.();
      return JSON.stringify(seen);
    };
    const messages = [{ role: 'user' as const, content: prompt }];
    const options = { num_predict: long, temperature: 0 };
    const cut = async (surface: Surface, model: string): Promise<string> => {
      switch (surface) {
        case 'chat':
          return leave(
            await openai.chat.completions.create({
              model,
              messages,
              max_tokens: long,
              temperature: 0,
              stream: true,
            }),
          );
        case 'completions':
          return leave(
            await openai.completions.create({
              model,
              prompt,
              max_tokens: long,
              temperature: 0,
              stream: true,
            }),
          );
        case 'responses':
          // What Codex does on Ctrl-C: the reported wedge.
          return leave(
            await openai.responses.create({
              model,
              input: prompt,
              max_output_tokens: long,
              temperature: 0,
              stream: true,
            }),
          );
        case 'messages':
          return leave(
            await anthropic.messages.create({
              model,
              messages,
              max_tokens: long,
              // Accepted by lmtab as Anthropic's API does; this SDK's types no longer list it.
              ...{ temperature: 0 },
              stream: true,
            }),
          );
        case 'ollama-chat': {
          const stream = await ollama.chat({ model, messages, options, stream: true });
          return leave(stream, () => stream.abort());
        }
        case 'ollama-generate': {
          const stream = await ollama.generate({ model, prompt, options, stream: true });
          return leave(stream, () => stream.abort());
        }
      }
    };
    for (const [i, surface] of surfaces.entries()) {
      const held = models[i % 2]!;
      const next = models[(i + 1) % 2]!;
      const seen = await Promise.all([cut(surface, held), cut(surface, held)]);
      for (const text of seen) {
        expect(text, surface).not.toMatch(/response\.completed|message_stop|"done":true/);
      }
      const answer = await openai.chat.completions.create(
        { model: next, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3 },
        { timeout: 60_000 },
      );
      expect(answer.model, surface).toBe(next);
      const engine = (await (await fetch(`${relay.url}/api/lmtab/engine`)).json()) as EngineState;
      expect(engine.loaded, surface).toEqual([expect.objectContaining({ model: next, active: 0 })]);
      const health = (await (await fetch(`${relay.url}/health`)).json()) as object;
      expect(JSON.stringify(health), surface).not.toMatch(/"active":[1-9]/);
    }
  });
});
