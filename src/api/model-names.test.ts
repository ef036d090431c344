import { describe, expect, it } from 'vitest';
import { checkModelName } from './pipeline/check-model-name.js';
import { routerHarness } from './testing/router-harness.js';

describe('checkModelName', () => {
  it('accepts the names Ollama accepts, and hub names', () => {
    for (const name of [
      'mario',
      'mario:7b',
      'library/mario:latest',
      'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
      'https://huggingface.co/org/repo',
      'localhost:5000/ns/model:v1.2',
      'lfm2-350m-q4_k_m',
      'sha256-abc',
    ]) {
      expect(checkModelName(name, 'model'), name).toBe(name);
    }
  });

  it('refuses paths, odd characters and over-long parts, without echoing them whole', () => {
    for (const name of [
      '../../etc/passwd',
      'a/b/c/d',
      '-x',
      'x:',
      'ns.dot/m',
      'a b',
      `${'m'.repeat(81)}`,
    ]) {
      expect(() => checkModelName(name, 'model'), name).toThrow(/Invalid `model`/);
    }
    const huge = 'x'.repeat(10 * 1024 * 1024);
    let message = '';
    try {
      checkModelName(huge, 'model');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('more than a name can hold');
    expect(message.length).toBeLessThan(400);
  });
});

describe('bad names and lone surrogates through the router: 400 in each protocol', () => {
  it('answers 400 for a path-like or 10 MB model name on every route that names a model', async () => {
    const { send, get } = routerHarness();
    const huge = 'x'.repeat(10 * 1024 * 1024);
    const cases: [string, unknown][] = [
      ['/api/show', { model: '../../etc/passwd' }],
      ['/api/delete', { model: '../../etc/passwd' }],
      ['/api/chat', { model: huge, messages: [] }],
      ['/api/generate', { model: '../../etc/passwd', prompt: 'hi' }],
      ['/api/copy', { source: 'lfm2-350m', destination: '../../etc/passwd' }],
      ['/api/create', { model: huge, from: 'lfm2-350m' }],
      ['/v1/chat/completions', { model: '../../etc/passwd', messages: [] }],
      ['/v1/completions', { model: huge, prompt: 'hi' }],
    ];
    for (const [path, body] of cases) {
      const method = path === '/api/delete' ? 'DELETE' : 'POST';
      const response = await send(path, body, { method });
      expect(response.status, path).toBe(400);
      const text = await response.text();
      expect(text.length, path).toBeLessThan(1000);
    }
    const model = await get('/v1/models/..%2F..%2Fetc%2Fpasswd');
    expect([400, 404]).toContain(model.status);
    expect((await (await get('/api/tags')).json()).models).toHaveLength(1);
  });

  it('answers 400 naming the field for a lone surrogate in a JSON body', async () => {
    const { send } = routerHarness();
    const chat = await send(
      '/v1/chat/completions',
      '{"model":"lfm2-350m","messages":[{"role":"user","content":"a\\ud800b"}]}',
    );
    expect(chat.status).toBe(400);
    const body = await chat.json();
    expect(body.error.param).toBe('messages[0].content');
    expect(body.error.message).toContain('lone surrogate (\\ud800)');
    const native = await send('/api/generate', '{"model":"lfm2-350m","prompt":"\\udc00"}');
    expect(native.status).toBe(400);
    expect((await native.json()).error).toContain('lone surrogate');
    // A proper pair passes the check.
    const pair = await send('/api/show', '{"model":"\\ud83d\\ude00"}');
    expect(pair.status).toBe(400);
    expect((await pair.json()).error).toContain('Invalid `model`');
  });
});
