import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LmtabError,
  errorCodeHeader,
  errorTable,
  readErrorAnswer,
  readErrorBody,
} from '../errors/index.js';
import type { LmtabErrorCode } from '../errors/index.js';
import { errorResponse, streamErrorBytes } from './routing/wire-errors.js';

const codes = Object.keys(errorTable) as LmtabErrorCode[];
const decode = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe('the error table', () => {
  it.each(codes)('%s keeps its status, types and header on every path', async (code) => {
    const row = errorTable[code];
    const error = new LmtabError(code, `Expected x, got ${code}.`);
    expect(error.status).toBe(row.status);

    const openAi = errorResponse('/v1/chat/completions', error);
    expect(openAi.status).toBe(row.status);
    expect(openAi.headers.get(errorCodeHeader)).toBe(code);
    expect(await openAi.json()).toEqual({
      error: { message: error.message, type: row.openAiType, param: null, code },
    });

    const anthropic = errorResponse('/v1/messages', error);
    expect(anthropic.status).toBe(row.status);
    expect(anthropic.headers.get(errorCodeHeader)).toBe(code);
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: { type: row.anthropicType, message: error.message },
    });

    const ollama = errorResponse('/api/chat', error);
    expect(ollama.status).toBe(row.status);
    expect(ollama.headers.get(errorCodeHeader)).toBe(code);
    expect(await ollama.json()).toEqual({ error: error.message });

    // Streams that fail after their head carry the code in their last event or line.
    const sse = decode(streamErrorBytes(code, error.message, 'text/event-stream'));
    expect(JSON.parse(sse.replace(/^data: /, ''))).toMatchObject({ error: { code } });
    const ndjson = decode(streamErrorBytes(code, error.message, 'application/x-ndjson'));
    expect(JSON.parse(ndjson)).toEqual({ error: error.message, code });

    // Clients read the code back from each shape, never from the status.
    for (const path of ['/v1/models', '/v1/messages', '/api/tags']) {
      const read = await readErrorAnswer(errorResponse(path, error));
      expect([read.code, read.message]).toEqual([code, error.message]);
    }
    const head = errorResponse('/api/blobs/sha256:00', error);
    const headOnly = new Response(null, { status: head.status, headers: head.headers });
    expect((await readErrorAnswer(headOnly)).code).toBe(code);
    expect(readErrorBody(JSON.parse(ndjson))?.code).toBe(code);
  });

  it('gives each code its own exit status, in the range of its kind', () => {
    const statuses = codes.map((code) => errorTable[code].exitStatus);
    expect(new Set(statuses).size).toBe(codes.length);
    for (const status of statuses) {
      expect(status === 130 || (status >= 2 && status < 60)).toBe(true);
    }
  });

  it('is docs/errors.md’s table and list, row for row', () => {
    const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const list = page.replace(/\n +/g, ' '); // a meaning may wrap onto indented lines
    const cell = (text: string) => ` +${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +\\|`;
    for (const code of codes) {
      const { status, exitStatus, openAiType, anthropicType, meaning } = errorTable[code];
      const row = [`\`${code}\``, status, exitStatus, `\`${openAiType}\``, `\`${anthropicType}\``];
      expect(page).toMatch(new RegExp(`^\\|${row.map((c) => cell(String(c))).join('')}$`, 'm'));
      expect(list).toContain(`- \`${code}\`: ${meaning}\n`);
    }
  });

  it('reads an answer without a known code as unexpected_response, whatever its status', async () => {
    const plain = await readErrorAnswer(new Response('Bad Gateway', { status: 502 }));
    expect(plain.code).toBe('unexpected_response');
    expect(plain.message).toContain('Bad Gateway');
    const unknown = await readErrorAnswer(
      Response.json({ error: { message: 'x', code: 'weird' } }, { status: 404 }),
    );
    expect(unknown.code).toBe('unexpected_response');
    expect(unknown.message).toContain('"weird"');
  });
});
