import { describe, expect, it } from 'vitest';
import { tokenReaderFor } from '../api/wire.js';
import { createAudioSecondsCounter, createTokenCounter } from './count-tokens.js';

const feed = (contentType: string, pieces: string[]) => {
  const counter = createTokenCounter(contentType);
  for (const piece of pieces) counter.push(new TextEncoder().encode(piece));
  return counter.result();
};

describe('createTokenCounter', () => {
  it('reads usage from a JSON answer (OpenAI and native)', () => {
    expect(feed('application/json', ['{"usage":{"completion_tokens"', ':12}}'])).toBe(12);
    expect(feed('application/json; charset=utf-8', ['{"done":true,"eval_count":7}'])).toBe(7);
    expect(feed('application/json', ['{"data":[]}'])).toBeUndefined();
  });

  it('counts SSE text events, preferring reported usage, across split pieces', () => {
    const event = (content: string) =>
      `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;
    const stream = event('a') + event('b') + event('');
    expect(
      feed('text/event-stream', [stream.slice(0, 30), stream.slice(30), 'data: [DONE]\n\n']),
    ).toBe(2);
    expect(
      feed('text/event-stream', [
        event('a'),
        'data: {"choices":[],"usage":{"completion_tokens":9}}\n\n',
      ]),
    ).toBe(9);
  });

  it('uses the last NDJSON line’s eval_count', () => {
    const lines = [
      '{"message":{"content":"a"}}\n',
      '{"message":{"content":"b"},"done":true,"eval_count":2}',
    ];
    expect(feed('application/x-ndjson', lines)).toBe(2);
    expect(feed('application/x-ndjson', ['{"response":"a"}\n{"response":"b"}\n'])).toBe(2);
  });

  it('reads Anthropic Messages and OpenAI Responses answers, streamed (CRLF too) or not', () => {
    const sse = (type: string, data: unknown) =>
      `event: ${type}\r\ndata: ${JSON.stringify({ type, ...(data as object) })}\r\n\r\n`;
    expect(
      feed('text/event-stream', [
        sse('content_block_delta', { delta: { type: 'text_delta', text: 'a' } }),
        sse('content_block_delta', { delta: { type: 'text_delta', text: 'b' } }),
      ]),
    ).toBe(2);
    expect(
      feed('text/event-stream', [
        sse('content_block_delta', { delta: { type: 'text_delta', text: 'a' } }),
        sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }),
      ]),
    ).toBe(5);
    expect(
      feed('text/event-stream', [
        sse('response.output_text.delta', { delta: 'a' }),
        sse('response.completed', { response: { usage: { output_tokens: 4 } } }),
      ]),
    ).toBe(4);
    expect(feed('application/json', ['{"type":"message","usage":{"output_tokens":3}}'])).toBe(3);
    expect(feed('application/json', ['{"object":"response","usage":{"output_tokens":6}}'])).toBe(6);
  });

  it('does not count other answers', () => {
    expect(feed('text/plain', ['hello'])).toBeUndefined();
  });

  it("counts what answers that generate nothing read: embeddings, rerank, llama-server's /tokenize", () => {
    const count = (path: string, answer: unknown) => {
      const counter = createTokenCounter('application/json', tokenReaderFor(path));
      counter.push(new TextEncoder().encode(JSON.stringify(answer)));
      return counter.result();
    };
    expect(count('/tokenize', { tokens: [1, 2, 3] })).toBe(3);
    expect(
      count('/v1/rerank', { results: [], usage: { prompt_tokens: 12, total_tokens: 12 } }),
    ).toBe(12);
    expect(
      count('/v1/embeddings', { data: [], usage: { prompt_tokens: 4, total_tokens: 4 } }),
    ).toBe(4);
    expect(count('/api/embed', { embeddings: [], prompt_eval_count: 6 })).toBe(6);
    expect(
      count('/v1/chat/completions', { usage: { prompt_tokens: 9, completion_tokens: 2 } }),
    ).toBe(2);
  });
});

describe('createAudioSecondsCounter', () => {
  const count = (type: string, rate: string | null, sizes: number[]) => {
    const headers = new Headers({ 'content-type': type });
    if (rate !== null) headers.set('x-sample-rate', rate);
    const counter = createAudioSecondsCounter(headers);
    for (const size of sizes) counter?.push(new Uint8Array(size));
    return counter?.result();
  };

  it('counts a spoken answer’s seconds: 16-bit mono at its X-Sample-Rate, a WAV’s header aside', () => {
    expect(count('audio/wav', '24000', [44 + 24_000, 24_000])).toBe(1);
    expect(count('audio/pcm', '16000', [16_000, 16_000])).toBe(1);
  });

  it('counts nothing for other answers, or audio without a rate', () => {
    expect(count('application/json', '24000', [100])).toBeUndefined();
    expect(count('audio/wav', null, [100])).toBeUndefined();
  });
});
