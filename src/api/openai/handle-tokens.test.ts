import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { fakeBos } from '../testing/fake-engine.js';
import { embedderRecordFixture, modelRecordFixture } from '../testing/model-record-fixture.js';
import { routerHarness } from '../testing/router-harness.js';

const chat = modelRecordFixture();
const bytes = (text: string) => [...new TextEncoder().encode(text)];

describe("llama-server's token routes", () => {
  it('/tokenize answers the ids, and with_pieces each id with its text or, mid-character, its bytes', async () => {
    const { send, engine } = routerHarness();
    const plain = await send('/tokenize', { content: 'hé' });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({ tokens: bytes('hé') });
    expect(engine.tokenRequests[0]).toEqual({
      model: chat.id,
      content: 'hé',
      addSpecial: false,
      parseSpecial: true,
      withPieces: false,
    });

    const pieces = await send('/tokenize', {
      model: chat.id,
      content: ['h', 7, 'é'],
      add_special: true,
      parse_special: false,
      with_pieces: true,
    });
    expect(await pieces.json()).toEqual({
      tokens: [
        { id: fakeBos, piece: '<s>' },
        { id: 104, piece: 'h' },
        { id: 7, piece: '\u0007' },
        { id: 0xc3, piece: [0xc3] },
        { id: 0xa9, piece: [0xa9] },
      ],
    });
  });

  it('/detokenize answers the text, bytes that are not UTF-8 as U+FFFD', async () => {
    const { send } = routerHarness();
    const whole = await send('/detokenize', { tokens: bytes('hé') });
    expect(await whole.json()).toEqual({ content: 'hé' });
    const cut = await send('/detokenize', { tokens: [104, 0xc3] });
    expect(await cut.json()).toEqual({ content: 'h\ufffd' });
  });

  it("/apply-template answers the prompt of the chat request, with the Modelfile's system prompt", async () => {
    const custom = modelRecordFixture({
      id: 'helper',
      customization: { from: chat.id, system: 'Be brief.', parameters: {}, messages: [] },
    });
    const { send, engine } = routerHarness({ records: [chat, custom] });
    const response = await send('/apply-template', {
      model: 'helper',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    });
    expect(response.status).toBe(200);
    const { prompt } = (await response.json()) as { prompt: string };
    expect(prompt).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
    );
    const request = engine.tokenRequests[0] as { model: string; tools?: { name: string }[] };
    expect(request.model).toBe('helper');
    expect(request.tools?.map((tool) => tool.name)).toEqual(['f']);
  });

  it('takes the loaded chat model when none is named, and asks for one when that is unclear', async () => {
    const other = modelRecordFixture({ id: 'lfm2-1.2b' });
    const { send, engine } = routerHarness({
      records: [chat, other, embedderRecordFixture('bge-small')],
    });
    const unclear = await send('/tokenize', { content: 'a' });
    expect(unclear.status).toBe(400);
    const error = (await unclear.json()) as { error: { message: string; param: string } };
    expect(error.error.param).toBe('model');
    expect(error.error.message).toContain('lfm2-350m, lfm2-1.2b');
    expect(error.error.message).not.toContain('bge-small');

    await engine.load('lfm2-1.2b');
    await send('/detokenize', { tokens: [97] });
    expect(engine.tokenRequests.at(-1)).toEqual({ model: 'lfm2-1.2b', tokens: [97] });
  });

  it('refuses wrong bodies, embedding models and unknown fields with 400s that name the field', async () => {
    const { send } = routerHarness({ records: [chat, embedderRecordFixture('bge-small')] });
    const cases: [string, unknown, string, RegExp][] = [
      ['/tokenize', { content: 5 }, 'content', /a string, or an array of strings and token ids/],
      ['/tokenize', { content: ['a', -1] }, 'content', /./],
      ['/tokenize', { content: 'a', n_probs: 2 }, 'n_probs', /Unsupported field `n_probs`/],
      ['/detokenize', { tokens: 'abc' }, 'tokens', /an array of token ids/],
      ['/detokenize', { tokens: [1.5] }, 'tokens', /./],
      [
        '/tokenize',
        { model: 'bge-small', content: 'a' },
        'model',
        /expected a chat or completion model/,
      ],
      ['/apply-template', { messages: [] }, 'messages', /./],
    ];
    for (const [path, body, param, message] of cases) {
      const response = await send(path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (await response.json()) as { error: { message: string; param: string | null } };
      if (param !== '')
        expect(error.error.param, JSON.stringify(body)).toMatch(new RegExp(`^${param}`));
      expect(error.error.message, JSON.stringify(body)).toMatch(message);
    }
  });

  it("passes the engine's refusal on in OpenAI's error shape", async () => {
    const { send, engine } = routerHarness();
    engine.detokenize = () =>
      Promise.reject(new LmtabError('not_implemented', 'no tokenizer call on this build'));
    const response = await send('/detokenize', { tokens: [1] });
    expect(response.status).toBe(501);
    expect(await response.json()).toMatchObject({
      error: { message: 'no tokenizer call on this build' },
    });
  });
});

describe('GET /props', () => {
  it("answers llama-server's properties of the model, loaded first, with its loaded context", async () => {
    const { get, engine } = routerHarness();
    const response = await get('/props');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      default_generation_settings: {
        id: 0,
        n_ctx: 4096,
        is_processing: false,
        params: { n_predict: -1 },
      },
      total_slots: 1,
      model_alias: chat.id,
      model_path: chat.id,
      modalities: { vision: false, audio: false },
      chat_template: chat.gguf.chatTemplate ?? '',
      n_ctx_train: chat.gguf.contextLength,
      build_info: 'lmtab 0.1.0',
      is_sleeping: false,
    });
    expect(engine.loads).toEqual([{ model: chat.id, options: expect.anything() }]);
  });

  it('takes ?model=, then the loaded one; 404 for a model not stored, 400 when unclear', async () => {
    const other = modelRecordFixture({ id: 'lfm2-1.2b' });
    const { get } = routerHarness({ records: [chat, other] });
    expect((await get('/props')).status).toBe(400);
    expect((await get('/props?model=nope')).status).toBe(404);
    const named = await get('/props?model=lfm2-1.2b');
    expect(((await named.json()) as { model_alias: string }).model_alias).toBe('lfm2-1.2b');
    const loaded = await get('/props');
    expect(((await loaded.json()) as { model_alias: string }).model_alias).toBe('lfm2-1.2b');
  });
});
