// Shared with the page's voice conversation (through src/api/wire.ts): no imports.

/** The one PCM rate of OpenAI's Realtime API (`audio/pcm`): 24 kHz, 16-bit, mono. */
export const realtimeRate = 24_000;

/** Base64 of 16-bit little-endian PCM samples (an `output_audio` delta). */
export function encodePcm16(samples: Int16Array): string {
  return encodeBase64(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
}

/** Standard base64 of bytes. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  // In pieces: String.fromCharCode takes a bounded number of arguments.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Samples of base64 16-bit little-endian PCM, as a Realtime client reads `response.output_audio.delta`
 * (trusted: the engine's own; `decodePcm16` checks a client's).
 */
export function decodePcm16Base64(base64: string): Int16Array {
  const binary = atob(base64);
  const samples = new Int16Array(binary.length >> 1);
  for (let i = 0; i < samples.length; i++) {
    const value = binary.charCodeAt(2 * i) | (binary.charCodeAt(2 * i + 1) << 8);
    samples[i] = (value << 16) >> 16;
  }
  return samples;
}
