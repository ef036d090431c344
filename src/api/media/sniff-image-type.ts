/** The image formats lmtab accepts, named in error messages. */
export const acceptedImageFormats = 'PNG, JPEG, GIF, WebP or BMP';

/** The MIME type of encoded image bytes by their magic bytes, or undefined when not an image. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  const starts = (signature: readonly number[], offset = 0): boolean =>
    bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (
    starts([0x47, 0x49, 0x46, 0x38, 0x37, 0x61]) ||
    starts([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])
  ) {
    return 'image/gif';
  }
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  if (starts([0x42, 0x4d]) && bytes.length >= 26) return 'image/bmp';
  return undefined;
}
