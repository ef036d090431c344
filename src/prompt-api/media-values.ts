import { acceptedAudioFormats, pcm16, readAudioFacts, wavFile } from '../api/wire.js';
import type { AudioFormat } from '../engine/index.js';

// The Prompt API's image and audio values as `/v1/chat/completions` parts: an image as a `data:`
// URI (`image_url`), a clip as base64 of a file the engine reads (`input_audio`).

/** An `image_url` or `input_audio` part of a chat message. */
export type MediaPart =
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: AudioFormat } };

/** A value the Prompt API refuses: `TypeError` for a value of the wrong kind, `NotSupportedError` for media it cannot read. */
export class MediaValueError extends Error {
  constructor(
    override readonly name: 'TypeError' | 'NotSupportedError',
    message: string,
  ) {
    super(message);
  }
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** The bytes of a Blob or a BufferSource; undefined for any other value. */
async function bytesOf(value: unknown): Promise<Uint8Array | undefined> {
  if (typeof Blob !== 'undefined' && value instanceof Blob) {
    return new Uint8Array(await value.arrayBuffer());
  }
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  return undefined;
}

/**
 * An image value (a Blob or BufferSource of an encoded image; or anything a canvas draws: an
 * ImageBitmap, an `<img>`, a canvas, a VideoFrame; or ImageData) as an `image_url` part. Pixels are
 * encoded as PNG; encoded bytes go as they are (the API reads their type from them).
 */
export async function imagePart(value: unknown): Promise<MediaPart> {
  const bytes = await bytesOf(value);
  if (bytes !== undefined) {
    const type =
      value instanceof Blob && value.type.startsWith('image/') ? value.type : 'image/png';
    return { type: 'image_url', image_url: { url: `data:${type};base64,${base64(bytes)}` } };
  }
  if (typeof OffscreenCanvas === 'undefined') {
    throw new MediaValueError(
      'TypeError',
      'An image value here must be a Blob or a BufferSource of an encoded image (no canvas to draw others).',
    );
  }
  const image = value as { width?: number; height?: number; displayWidth?: number };
  const width = image.width ?? image.displayWidth ?? 0;
  const height = image.height ?? 0;
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  if (context === null || width === 0 || height === 0) {
    throw new MediaValueError('TypeError', 'The image value has no pixels to read.');
  }
  if (typeof ImageData !== 'undefined' && value instanceof ImageData) {
    context.putImageData(value, 0, 0);
  } else {
    context.drawImage(value as CanvasImageSource, 0, 0);
  }
  const png = await canvas.convertToBlob({ type: 'image/png' });
  return imagePart(png);
}

/** The samples of an AudioBuffer, its channels mixed to one. */
function mono(buffer: AudioBuffer): Float32Array {
  const channels = Array.from({ length: buffer.numberOfChannels }, (_, c) =>
    buffer.getChannelData(c),
  );
  return Float32Array.from({ length: buffer.length }, (_, i) => {
    let sum = 0;
    for (const channel of channels) sum += channel[i]!;
    return sum / channels.length;
  });
}

/**
 * An audio value (an AudioBuffer, or a Blob or BufferSource of a WAV, MP3 or FLAC file) as an
 * `input_audio` part; an AudioBuffer becomes a mono 16-bit WAV at its own rate.
 */
export async function audioPart(value: unknown): Promise<MediaPart> {
  const isAudioBuffer =
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AudioBuffer).getChannelData === 'function' &&
    typeof (value as AudioBuffer).sampleRate === 'number';
  const bytes = isAudioBuffer
    ? wavFile(pcm16(mono(value as AudioBuffer)), (value as AudioBuffer).sampleRate)
    : await bytesOf(value);
  if (bytes === undefined) {
    throw new MediaValueError(
      'TypeError',
      'An audio value must be an AudioBuffer, a Blob or a BufferSource of an audio file.',
    );
  }
  const facts = readAudioFacts(bytes);
  if (facts === undefined) {
    throw new MediaValueError(
      'NotSupportedError',
      `The audio value is ${bytes.length} bytes of no format the model reads: expected an AudioBuffer or a ${acceptedAudioFormats} file.`,
    );
  }
  return { type: 'input_audio', input_audio: { data: base64(bytes), format: facts.format } };
}
