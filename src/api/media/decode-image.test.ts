import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { decodeImage } from './decode-image.js';
import type { DecodeImageOptions } from './decode-image.js';

const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const param = 'messages[0].content[1].image_url.url';
const options: DecodeImageOptions = { param, maxBytes: 1024 };

async function failure(
  source: string,
  extra: Partial<DecodeImageOptions> = {},
): Promise<LmtabError> {
  try {
    await decodeImage(source, { ...options, ...extra });
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected decodeImage to throw');
}

describe('decodeImage', () => {
  it('decodes a base64 data URI, taking the MIME type from the magic bytes', async () => {
    const image = await decodeImage(`data:image/jpeg;base64,${base64(png)}`, options);
    expect(image).toEqual({ type: 'image', data: png, mimeType: 'image/png' });
  });

  it.each([
    [[0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
    [[...new TextEncoder().encode('GIF89a'), 1, 0], 'image/gif'],
    [
      [...new TextEncoder().encode('RIFF'), 0, 0, 0, 0, ...new TextEncoder().encode('WEBPVP8 ')],
      'image/webp',
    ],
    [[0x42, 0x4d, ...new Array<number>(30).fill(0)], 'image/bmp'],
  ])('recognises %j as %s', async (bytes, mimeType) => {
    const image = await decodeImage(
      `data:image/png;base64,${base64(Uint8Array.from(bytes))}`,
      options,
    );
    expect(image.mimeType).toBe(mimeType);
  });

  it('takes bare base64 where allowed (Ollama images)', async () => {
    const image = await decodeImage(base64(png), { ...options, bareBase64: true });
    expect(image.data).toEqual(png);
  });

  it('fetches an http(s) URL with the injected fetch', async () => {
    const seen: string[] = [];
    const fetch = (input: RequestInfo | URL) => {
      seen.push(String(input));
      return Promise.resolve(new Response(png));
    };
    const image = await decodeImage('https://example.test/cat.png', { ...options, fetch });
    expect(seen).toEqual(['https://example.test/cat.png']);
    expect(image).toEqual({ type: 'image', data: png, mimeType: 'image/png' });
  });

  it.each([
    [
      'data:image/png,rawbytes',
      'Invalid image at `messages[0].content[1].image_url.url`: expected a base64 data URI (data:image/png;base64,...), received a data URI without ";base64," ("data:image/png").',
    ],
    [
      'data:image/png;base64,not base64!',
      'Invalid image at `messages[0].content[1].image_url.url`: expected base64-encoded image bytes, received text that is not base64 ("notbase64!").',
    ],
    [
      `data:image/png;base64,${btoa('<html>hello</html>')}`,
      'Invalid image at `messages[0].content[1].image_url.url`: expected a PNG, JPEG, GIF, WebP or BMP image, received 18 bytes that are none of these (first bytes: 3c 68 74 6d 6c 3e 68 65).',
    ],
    [
      'ftp://example.test/cat.png',
      'Invalid image at `messages[0].content[1].image_url.url`: expected a data:image/...;base64 URI or an http(s) URL, received "ftp://example.test/cat.png".',
    ],
    [
      base64(png),
      `Invalid image at \`messages[0].content[1].image_url.url\`: expected a data:image/...;base64 URI or an http(s) URL, received "${base64(png)}".`,
    ],
  ])('refuses %s with 400', async (source, message) => {
    const error = await failure(source);
    expect(error.message).toBe(message);
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param });
  });

  it('refuses an image over the limit', async () => {
    const error = await failure(`data:image/png;base64,${base64(png)}`, { maxBytes: 8 });
    expect(error.message).toBe(
      'Image at `messages[0].content[1].image_url.url` too large: the limit is 8 bytes, received 12 bytes.',
    );
  });

  it('says the status when the URL cannot be fetched', async () => {
    const fetch = () =>
      Promise.resolve(new Response('gone', { status: 404, statusText: 'Not Found' }));
    const error = await failure('https://example.test/cat.png', { fetch });
    expect(error.message).toBe(
      'Could not fetch the image at `messages[0].content[1].image_url.url` (https://example.test/cat.png): ' +
        'expected HTTP 200, the server answered HTTP 404 Not Found.',
    );
    expect(error.status).toBe(400);
  });

  it('says why the fetch failed', async () => {
    const fetch = () => Promise.reject(new TypeError('fetch failed'));
    const error = await failure('http://example.test/cat.png', { fetch });
    expect(error.message).toBe(
      'Could not fetch the image at `messages[0].content[1].image_url.url` (http://example.test/cat.png): fetch failed.',
    );
  });

  it('refuses a URL where only base64 is taken', async () => {
    const error = await failure('https://example.test/cat.png', { bareBase64: true });
    expect(error.message).toBe(
      'Invalid image at `messages[0].content[1].image_url.url`: expected base64 image data, received a URL ("https://example.test/cat.png").',
    );
  });
});
