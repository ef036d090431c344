import { LmtabError } from '../../errors/index.js';
import type { ContentPart } from '../engine.js';

/** Formats llama.cpp's image loader (stb_image) reads directly; others are re-encoded as PNG. */
const nativeTypes = new Set(['image/png', 'image/jpeg']);

/**
 * Decodes an image once to prove it is readable, and re-encodes formats llama.cpp cannot read
 * (WebP, GIF frames, BMP variants) as PNG, so a bad image is a clear 400 instead of an engine error.
 */
export async function prepareImage(
  part: Extract<ContentPart, { type: 'image' }>,
  index: number,
): Promise<ArrayBuffer> {
  const blob = new Blob([part.data as BlobPart], { type: part.mimeType });
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(blob);
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Image ${index + 1} could not be decoded: expected a readable PNG, JPEG, GIF, WebP or BMP image, got ${part.data.byteLength} bytes declared as ${part.mimeType}.`,
      { param: 'messages', cause: error },
    );
  }
  try {
    if (nativeTypes.has(part.mimeType)) return part.data.slice().buffer as ArrayBuffer;
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
    const png = await canvas.convertToBlob({ type: 'image/png' });
    return await png.arrayBuffer();
  } finally {
    bitmap.close();
  }
}
