import { describe, expect, it } from 'vitest';
import { requestBody, requestStreamBodies, requestWithBody } from './request-body.js';

/** A request as Firefox gives it: no `body` property (its prototype has none). */
function withoutBodyProperty(request: Request): Request {
  Object.defineProperty(request, 'body', { value: undefined });
  return request;
}

describe('request bodies', () => {
  it('takes stream bodies where the runtime has them (Node, like Chromium)', async () => {
    expect(requestStreamBodies).toBe(true);
    const stream = new Response('streamed').body!;
    const request = requestWithBody('http://lmtab.test/v1', { method: 'POST', body: stream });
    expect(request.body).toBe(stream);
    expect(await request.text()).toBe('streamed');
  });

  it('reads a body through blob() where Request has no body property (Firefox)', async () => {
    const request = withoutBodyProperty(
      new Request('http://lmtab.test/v1', { method: 'POST', body: '{"model":"m"}' }),
    );
    expect(await new Response(requestBody(request)).text()).toBe('{"model":"m"}');
  });

  it('has no body for GET, and an empty stream for an empty POST', async () => {
    expect(requestBody(withoutBodyProperty(new Request('http://lmtab.test/')))).toBeNull();
    const empty = withoutBodyProperty(new Request('http://lmtab.test/', { method: 'POST' }));
    expect(new Uint8Array(await new Response(requestBody(empty)).arrayBuffer())).toHaveLength(0);
  });
});
