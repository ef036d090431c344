import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { readJsonBody } from './read-json-body.js';

const maxBytes = 64;

async function failure(request: Request): Promise<LmtabError> {
  try {
    await readJsonBody(request, { maxBytes });
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected readJsonBody to throw');
}

function streamed(text: string): Request {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 16) controller.enqueue(bytes.slice(i, i + 16));
      controller.close();
    },
  });
  return new Request('http://lmtab.test/v1/chat/completions', {
    method: 'POST',
    body,
    duplex: 'half',
  } as RequestInit);
}

describe('readJsonBody', () => {
  it('parses a JSON body', async () => {
    const request = new Request('http://lmtab.test/', {
      method: 'POST',
      body: '{"a":0,"b":false}',
    });
    expect(await readJsonBody(request, { maxBytes })).toEqual({ a: 0, b: false });
  });

  it('refuses a body whose Content-Length is over the limit, before reading it (413)', async () => {
    const request = new Request('http://lmtab.test/', {
      method: 'POST',
      headers: { 'Content-Length': '40000000' },
      body: '{}',
    });
    const error = await failure(request);
    expect(error.message).toBe(
      'Request body too large: the limit is 64 bytes, the Content-Length header says ' +
        '40000000 bytes (38.15 MiB).',
    );
    expect(error).toMatchObject({ code: 'body_too_large', status: 413 });
  });

  it('counts the bytes actually read when there is no Content-Length (413)', async () => {
    const error = await failure(streamed(`{"text":"${'x'.repeat(100)}"}`));
    expect(error.message).toBe(
      'Request body too large: the limit is 64 bytes, received at least 80 bytes.',
    );
    expect(error.status).toBe(413);
  });

  it('says the body was empty (400)', async () => {
    const error = await failure(new Request('http://lmtab.test/', { method: 'POST' }));
    expect(error.message).toBe(
      'Missing request body: expected a JSON object, received an empty body.',
    );
    expect(error.status).toBe(400);
  });

  it('says what arrived when the JSON is malformed (400)', async () => {
    const error = await failure(streamed('{"model": "lfm2", '));
    expect(error.message).toBe(
      'Malformed JSON in the request body: expected a JSON object, received 18 bytes starting with ' +
        '"{\\"model\\": \\"lfm2\\", ".',
    );
    expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('refuses JSON nested past the limit before walking it (400, not a stack overflow)', async () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      const text = open.repeat(100_000) + close.repeat(100_000);
      const request = new Request('http://lmtab.test/', { method: 'POST', body: text });
      const error = await readJsonBody(request, { maxBytes: 1e6 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LmtabError);
      expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
      expect((error as LmtabError).message).toMatch(
        /^JSON nested too deeply in the request body: expected at most 128 levels of arrays and objects, received more \(level 129 opens at character \d+ of \d+\)\.$/,
      );
    }
  });

  it('takes 128 levels, and brackets inside strings do not count', async () => {
    const deep = `${'['.repeat(127)}{"text":"[[[[{{{{\\"[["}${']'.repeat(127)}`;
    const request = new Request('http://lmtab.test/', { method: 'POST', body: deep });
    expect(await readJsonBody(request, { maxBytes: 1024 })).toBeInstanceOf(Array);
  });
});
