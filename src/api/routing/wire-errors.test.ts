import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { errorResponse, streamErrorBytes } from './wire-errors.js';

describe('errorResponse', () => {
  it('answers in the path’s protocol with the router’s mapping', async () => {
    const openAi = errorResponse(
      '/v1/chat/completions',
      'no_engine',
      'No engine tab is connected.',
    );
    expect(openAi.status).toBe(503);
    expect(openAi.headers.get('Retry-After')).toBe('1');
    expect(await openAi.json()).toEqual({
      error: {
        message: 'No engine tab is connected.',
        type: 'server_error',
        param: null,
        code: 'no_engine',
      },
    });
    const native = errorResponse('/api/tags', new LmtabError('unauthorized', 'Missing API key.'));
    expect(native.status).toBe(401);
    expect(await native.json()).toEqual({ error: 'Missing API key.' });
  });

  it('answers /v1/messages paths in Anthropic’s shape', async () => {
    for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
      const busy = errorResponse(path, 'no_engine', 'No engine tab is connected.');
      expect(busy.status).toBe(503);
      expect(await busy.json()).toEqual({
        type: 'error',
        error: { type: 'overloaded_error', message: 'No engine tab is connected.' },
      });
    }
    const key = errorResponse('/v1/messages', new LmtabError('unauthorized', 'Missing API key.'));
    expect(key.status).toBe(401);
    expect(await key.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Missing API key.' },
    });
    expect((await errorResponse('/v1/messagesx', 'not_found', 'x').json()) as unknown).toEqual({
      error: { message: 'x', type: 'not_found_error', param: null, code: 'not_found' },
    });
  });

  it('treats an unknown code as an engine failure', () => {
    expect(errorResponse('/v1/models', 'weird', 'x').status).toBe(500);
  });
});

describe('streamErrorBytes', () => {
  it('writes a last SSE event or NDJSON line', () => {
    const decode = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
    expect(decode(streamErrorBytes('engine_failure', 'Lost.', 'text/event-stream'))).toBe(
      'data: {"error":{"message":"Lost.","type":"server_error","param":null,"code":"engine_failure"}}\n\n',
    );
    expect(decode(streamErrorBytes('engine_failure', 'Lost.', 'application/x-ndjson'))).toBe(
      '{"error":"Lost.","code":"engine_failure"}\n',
    );
    expect(streamErrorBytes('engine_failure', 'Lost.', 'application/json')).toBeUndefined();
    expect(
      decode(streamErrorBytes('engine_failure', 'Lost.', 'text/event-stream', '/v1/messages')),
    ).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"Lost."}}\n\n',
    );
    expect(
      decode(streamErrorBytes('engine_failure', 'Lost.', 'text/event-stream', '/v1/responses')),
    ).toBe(
      'data: {"error":{"message":"Lost.","type":"server_error","param":null,"code":"engine_failure"}}\n\n',
    );
  });
});
