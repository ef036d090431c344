import { describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
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
      '{"error":"Lost."}\n',
    );
    expect(streamErrorBytes('engine_failure', 'Lost.', 'application/json')).toBeUndefined();
  });
});
