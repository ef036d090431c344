import { describe, expect, it } from 'vitest';
import {
  decodeBodyPiece,
  encodeBodyPiece,
  parseRelayFrame,
  parseTabFrame,
} from './socket-frames.js';

describe('body pieces', () => {
  it('carry the request id before the bytes', () => {
    const message = encodeBodyPiece('1f', new Uint8Array([7, 8, 9]));
    expect([...message]).toEqual([2, 0x31, 0x66, 7, 8, 9]);
    const piece = decodeBodyPiece(message);
    expect(piece?.id).toBe('1f');
    expect([...(piece?.chunk ?? [])]).toEqual([7, 8, 9]);
  });

  it('refuse ids that do not fit, and malformed messages', () => {
    expect(() => encodeBodyPiece('', new Uint8Array())).toThrow(RangeError);
    expect(() => encodeBodyPiece('x'.repeat(256), new Uint8Array())).toThrow(RangeError);
    expect(decodeBodyPiece(new Uint8Array([]))).toBeUndefined();
    expect(decodeBodyPiece(new Uint8Array([5, 1]))).toBeUndefined();
  });
});

describe('parseTabFrame', () => {
  it('accepts the frames a tab sends', () => {
    expect(parseTabFrame('{"type":"hello","capacity":4,"version":"0.1.0"}')).toEqual({
      type: 'hello',
      capacity: 4,
      version: '0.1.0',
    });
    expect(
      parseTabFrame('{"type":"head","id":"1","status":200,"headers":[["content-type","x"]]}'),
    ).toEqual({ type: 'head', id: '1', status: 200, headers: [['content-type', 'x']] });
    expect(parseTabFrame('{"type":"hello","capacity":2,"bodyWindow":8388608}')).toEqual({
      type: 'hello',
      capacity: 2,
      bodyWindow: 8388608,
    });
    expect(parseTabFrame('{"type":"credit","id":"1","bytes":65536}')).toEqual({
      type: 'credit',
      id: '1',
      bytes: 65536,
    });
    expect(parseTabFrame('{"type":"end","id":"1"}')).toEqual({ type: 'end', id: '1' });
    expect(parseTabFrame('{"type":"slots","capacity":1}')).toEqual({ type: 'slots', capacity: 1 });
    expect(parseTabFrame('{"type":"error","id":"1","code":"aborted","message":"m"}')).toEqual({
      type: 'error',
      id: '1',
      code: 'aborted',
      message: 'm',
    });
  });

  it('drops extra fields and refuses anything else', () => {
    expect(parseTabFrame('{"type":"end","id":"1","run":"rm -rf /"}')).toEqual({
      type: 'end',
      id: '1',
    });
    for (const text of [
      'not json',
      '[]',
      '{"type":"hello","capacity":0}',
      '{"type":"slots","capacity":0}',
      '{"type":"slots","capacity":"4"}',
      '{"type":"hello","capacity":1,"bodyWindow":0}',
      '{"type":"hello","capacity":1,"bodyWindow":"8m"}',
      '{"type":"credit","id":"1","bytes":-5}',
      '{"type":"credit","id":"1","bytes":1.5}',
      '{"type":"credit","bytes":5}',
      '{"type":"head","id":"1","status":101,"headers":[]}',
      '{"type":"head","id":"1","status":200,"headers":[["a"]]}',
      '{"type":"head","id":"1","status":200,"headers":{"a":"b"}}',
      '{"type":"error","id":"1","code":5,"message":"m"}',
      '{"type":"request","id":"1"}',
      '{"type":"end"}',
    ]) {
      expect(parseTabFrame(text), text).toBeUndefined();
    }
  });
});

describe('parseRelayFrame', () => {
  it('accepts requests, body ends and aborts', () => {
    const request = {
      type: 'request',
      id: 'a',
      method: 'POST',
      url: '/v1/chat/completions',
      headers: [['content-type', 'application/json']],
      hasBody: true,
    };
    expect(parseRelayFrame(JSON.stringify(request))).toEqual(request);
    expect(parseRelayFrame('{"type":"abort","id":"a"}')).toEqual({ type: 'abort', id: 'a' });
    expect(parseRelayFrame('{"type":"end","id":"a"}')).toEqual({ type: 'end', id: 'a' });
  });

  it('refuses a request for an absolute URL or without hasBody', () => {
    const base = { type: 'request', id: 'a', method: 'GET', headers: [], hasBody: false };
    expect(parseRelayFrame(JSON.stringify({ ...base, url: 'http://evil/x' }))).toBeUndefined();
    expect(
      parseRelayFrame(JSON.stringify({ ...base, url: '/v1/models', hasBody: undefined })),
    ).toBeUndefined();
  });
});
