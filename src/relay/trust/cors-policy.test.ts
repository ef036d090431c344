import { describe, expect, it } from 'vitest';
import { decideCors, preflightHeaders } from './cors-policy.js';

describe('decideCors', () => {
  it('needs nothing without an Origin or from the relay’s own origin', () => {
    expect(decideCors({ host: '127.0.0.1:1234' }, [])).toEqual({ kind: 'same-origin' });
    expect(decideCors({ host: '192.168.1.5:1234', origin: 'http://192.168.1.5:1234' }, [])).toEqual(
      { kind: 'same-origin' },
    );
  });

  it('allows listed origins (or any, with *) and refuses the rest', () => {
    const listed = decideCors({ host: 'h:1', origin: 'https://app.example' }, [
      'https://app.example',
    ]);
    expect(listed).toMatchObject({
      kind: 'allowed',
      headers: { 'Access-Control-Allow-Origin': 'https://app.example', Vary: 'Origin' },
    });
    expect(decideCors({ host: 'h:1', origin: 'https://x.example' }, ['*'])).toMatchObject({
      headers: { 'Access-Control-Allow-Origin': '*' },
    });
    expect(
      decideCors({ host: 'h:1', origin: 'https://evil.example' }, ['https://app.example']),
    ).toEqual({
      kind: 'refused',
      origin: 'https://evil.example',
    });
    expect(decideCors({ host: 'h:1', origin: 'null' }, [])).toMatchObject({ kind: 'refused' });
  });
});

describe('preflightHeaders', () => {
  it('echoes the requested headers and answers Private Network Access', () => {
    expect(
      preflightHeaders({
        'access-control-request-headers': 'x-stainless-os, authorization',
        'access-control-request-private-network': 'true',
      }),
    ).toMatchObject({
      'Access-Control-Allow-Headers': 'x-stainless-os, authorization',
      'Access-Control-Allow-Private-Network': 'true',
    });
    expect(preflightHeaders({})['Access-Control-Allow-Headers']).toBe(
      'Authorization, Content-Type',
    );
  });
});
