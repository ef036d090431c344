import { describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { pullAndLoad, storedModelName } from './pull-and-load.js';

interface Call {
  method: string;
  path: string;
  body: unknown;
}

function fakeRelay(answers: {
  pull?: () => Response;
  tags?: { name: string; modified_at?: string }[];
  load?: () => Response;
}) {
  const calls: Call[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ method: init?.method ?? 'GET', path: url.pathname, body });
    if (url.pathname === '/api/pull') {
      return (
        answers.pull?.() ??
        new Response(
          [
            { status: 'pulling manifest' },
            { status: 'pulling 0123456789ab', total: 1000, completed: 0 },
            { status: 'pulling 0123456789ab', total: 1000, completed: 50 },
            { status: 'pulling 0123456789ab', total: 1000, completed: 550 },
            { status: 'pulling 0123456789ab', total: 1000, completed: 1000 },
            { status: 'success' },
          ]
            .map((line) => `${JSON.stringify(line)}\n`)
            .join(''),
        )
      );
    }
    if (url.pathname === '/api/tags') return Response.json({ models: answers.tags ?? [] });
    return answers.load?.() ?? Response.json({ done: true, done_reason: 'load' });
  }) as typeof fetch;
  return { calls, fetchImpl };
}

describe('pullAndLoad', () => {
  it('pulls, finds the stored name, and loads it with the context length', async () => {
    const relay = fakeRelay({ tags: [{ name: 'hf.co/acme/Tiny-GGUF:Q4_K_M' }] });
    const lines: string[] = [];
    const name = await pullAndLoad({
      relayUrl: 'http://relay',
      model: 'acme/Tiny-GGUF',
      contextLength: 2048,
      fetch: relay.fetchImpl,
      onStatus: (line) => lines.push(line),
    });
    expect(name).toBe('hf.co/acme/Tiny-GGUF:Q4_K_M');
    expect(lines).toEqual([
      'pulling manifest',
      'pulling 0123456789ab 0%',
      'pulling 0123456789ab 50%',
      'pulling 0123456789ab 100%',
      'success',
      'loading hf.co/acme/Tiny-GGUF:Q4_K_M',
    ]);
    expect(relay.calls).toEqual([
      { method: 'POST', path: '/api/pull', body: { model: 'acme/Tiny-GGUF', stream: true } },
      { method: 'GET', path: '/api/tags', body: undefined },
      {
        method: 'POST',
        path: '/api/generate',
        body: {
          model: 'hf.co/acme/Tiny-GGUF:Q4_K_M',
          keep_alive: -1,
          stream: false,
          options: { num_ctx: 2048 },
        },
      },
    ]);
  });

  it.each([
    [
      'a refused pull',
      {
        pull: () =>
          Response.json(
            { error: 'no repo acme/Nope' },
            { status: 404, headers: { 'X-Lmtab-Error-Code': 'model_not_found' } },
          ),
      },
      'model_not_found',
      'Pulling acme/Nope failed (404): no repo acme/Nope',
    ],
    [
      'an error line',
      {
        pull: () =>
          new Response(
            '{"status":"pulling manifest"}\n{"error":"disk full","code":"download_failed"}\n',
          ),
      },
      'download_failed',
      'Pulling acme/Nope failed: disk full',
    ],
    [
      'no success',
      { pull: () => new Response('{"status":"pulling manifest"}\n') },
      'download_failed',
      'Pulling acme/Nope ended without "success".',
    ],
    ['nothing stored', {}, 'model_not_found', 'Pulled acme/Nope, but /api/tags does not list it.'],
    [
      'a failed load',
      {
        tags: [{ name: 'hf.co/acme/Nope:Q4_K_M' }],
        load: () =>
          Response.json(
            { error: 'out of memory' },
            { status: 500, headers: { 'X-Lmtab-Error-Code': 'engine_failure' } },
          ),
      },
      'engine_failure',
      'Loading hf.co/acme/Nope:Q4_K_M failed (500): out of memory',
    ],
  ])('reports %s', async (_name, answers, code, message) => {
    const relay = fakeRelay(answers);
    const error = await pullAndLoad({
      relayUrl: 'http://relay',
      model: 'acme/Nope',
      contextLength: 4096,
      fetch: relay.fetchImpl,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LmtabError);
    expect((error as LmtabError).code).toBe(code);
    expect((error as LmtabError).message).toBe(message);
  });
});

describe('storedModelName', () => {
  const models = [
    { name: 'hf.co/Acme/Tiny-GGUF:Q8_0', modified_at: '2026-01-02T00:00:00Z' },
    { name: 'hf.co/Acme/Tiny-GGUF:Q4_K_M', modified_at: '2026-01-01T00:00:00Z' },
    { name: 'hf.co/acme/Other-GGUF:Q2_K', modified_at: '2026-01-03T00:00:00Z' },
  ];
  it('matches the hub spelling, the level, Q4_K_M by default, else the newest', () => {
    expect(storedModelName(models, 'acme/tiny-gguf:q8_0')).toBe('hf.co/Acme/Tiny-GGUF:Q8_0');
    expect(storedModelName(models, 'hf.co/acme/Tiny-GGUF')).toBe('hf.co/Acme/Tiny-GGUF:Q4_K_M');
    expect(storedModelName(models, 'acme/Other-GGUF')).toBe('hf.co/acme/Other-GGUF:Q2_K');
    expect(storedModelName(models, 'acme/Tiny-GGUF:Q6_K')).toBeUndefined();
  });
});
