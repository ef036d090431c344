import { describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { errorResponse, streamErrorBytes } from './routing/wire-errors.js';

const lost = () =>
  new LmtabError(
    'gpu_device_lost',
    'The GPU device was lost while lfm2 was generating on WebGPU (nvidia ampere).',
  );

describe('a lost GPU device in each protocol', () => {
  it('is a 503 with Retry-After in OpenAI, Anthropic and Ollama shapes', async () => {
    const openai = errorResponse('/v1/chat/completions', lost());
    expect(openai.status).toBe(503);
    expect(openai.headers.get('Retry-After')).toBe('1');
    expect(await openai.json()).toEqual({
      error: {
        message: 'The GPU device was lost while lfm2 was generating on WebGPU (nvidia ampere).',
        type: 'server_error',
        param: null,
        code: 'gpu_device_lost',
      },
    });
    const anthropic = errorResponse('/v1/messages', lost());
    expect(anthropic.status).toBe(503);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    const ollama = errorResponse('/api/chat', lost());
    expect(ollama.status).toBe(503);
    expect((await ollama.json()).error).toContain('The GPU device was lost');
  });

  it('keeps its code when it crosses a transport mid-stream', () => {
    const tail = new TextDecoder().decode(
      streamErrorBytes('gpu_device_lost', 'lost', 'text/event-stream', '/v1/chat/completions'),
    );
    expect(tail).toContain('"code":"gpu_device_lost"');
  });
});
