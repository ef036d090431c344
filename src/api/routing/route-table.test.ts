import { describe, expect, it } from 'vitest';
import { isApiPath, routeScope, routeTable, tokenReaderFor } from './route-table.js';
import { routes } from './routes.js';

describe('the route table', () => {
  it('gives every row a handler', () => {
    expect(routes).toHaveLength(routeTable.length);
    for (const route of routes) expect(typeof route.handler, route.path).toBe('function');
  });

  it('says which paths are the API', () => {
    for (const path of ['/v1', '/api', '/v1/chat/completions', '/api/tags', '/v1/anything']) {
      expect(isApiPath(path), path).toBe(true);
    }
    for (const path of ['/', '/v1x', '/apis', '/index.html', '/lmtab/engine']) {
      expect(isApiPath(path), path).toBe(false);
    }
  });

  it('needs admin for the routes that change models, query or not', () => {
    for (const path of [
      '/api/pull',
      '/api/create',
      '/api/copy',
      '/api/delete',
      '/api/blobs/sha256:00',
      '/api/delete?x=1',
    ]) {
      expect(routeScope(path), path).toBe('admin');
    }
    for (const path of ['/api/chat', '/api/tags', '/v1/chat/completions', '/api/pullx', '/']) {
      expect(routeScope(path), path).toBe('api');
    }
  });

  it('reads token counts by the protocol of the path', () => {
    const anthropic = tokenReaderFor('/v1/messages');
    expect(anthropic.reported({ type: 'message_delta', usage: { output_tokens: 5 } })).toBe(5);
    expect(anthropic.carriesText({ choices: [{ delta: { content: 'a' } }] })).toBe(false);
    const openAi = tokenReaderFor('/v1/chat/completions');
    expect(openAi.carriesText({ choices: [{ delta: { content: 'a' } }] })).toBe(true);
    expect(openAi.reported({ eval_count: 5 })).toBeUndefined();
    // Transcripts: their usage, and one delta event per piece of text.
    const transcript = tokenReaderFor('/v1/audio/transcriptions');
    expect(transcript.reported({ text: 'a', usage: { type: 'tokens', output_tokens: 4 } })).toBe(4);
    expect(transcript.carriesText({ type: 'transcript.text.delta', delta: 'a' })).toBe(true);
    // Realtime sessions: every answer's and transcript's text delta, not any one event's usage.
    const realtime = tokenReaderFor('/v1/realtime?model=m');
    const event = (type: string, fields: object) => ({ event_id: 'event_1', type, ...fields });
    expect(realtime.carriesText(event('response.output_text.delta', { delta: 'a' }))).toBe(true);
    expect(
      realtime.carriesText(
        event('conversation.item.input_audio_transcription.delta', { delta: 'a' }),
      ),
    ).toBe(true);
    expect(realtime.carriesText(event('input_audio_buffer.committed', { item_id: 'i' }))).toBe(
      false,
    );
    expect(
      realtime.reported(
        event('conversation.item.input_audio_transcription.completed', {
          usage: { output_tokens: 9 },
        }),
      ),
    ).toBeUndefined();
    const responses = tokenReaderFor('/v1/responses');
    expect(responses.carriesText({ type: 'response.output_text.delta', delta: 'a' })).toBe(true);
    expect(tokenReaderFor('/api/generate').carriesText({ response: 'a' })).toBe(true);
    expect(tokenReaderFor('/unknown').reported({ eval_count: 3 })).toBe(3);
  });
});
