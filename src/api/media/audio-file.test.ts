import { describe, expect, it } from 'vitest';
import { assertAudioFile, readAudioFacts } from './audio-file.js';
import { testWav } from '../testing/audio-samples.js';

/** A FLAC stream's head: the marker and a STREAMINFO block (`rate` Hz, `samples` in all). */
function testFlac(samples: number, rate: number): Uint8Array {
  const bytes = new Uint8Array(8 + 34);
  bytes.set([0x66, 0x4c, 0x61, 0x43, 0x80, 0, 0, 34]);
  const info = bytes.subarray(8);
  info[10] = rate >> 12;
  info[11] = (rate >> 4) & 0xff;
  info[12] = ((rate & 0xf) << 4) | (0 << 1); // mono, 16 bits follow in the low bits
  new DataView(info.buffer, info.byteOffset).setUint32(14, samples);
  return bytes;
}

/** An ID3v2 tag, then `frames` MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz (417 bytes each). */
function testMp3(frames: number): Uint8Array {
  const tag = [0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5];
  const bytes = new Uint8Array(tag.length + frames * 417);
  bytes.set(tag);
  for (let i = 0; i < frames; i++) bytes.set([0xff, 0xfb, 0x90, 0x00], tag.length + i * 417);
  return bytes;
}

describe('readAudioFacts', () => {
  it('reads a WAV file and its length from its fmt and data chunks', () => {
    expect(readAudioFacts(testWav(24_000))).toEqual({ format: 'wav', durationSeconds: 1.5 });
  });

  it('reads a FLAC file and its length from STREAMINFO', () => {
    expect(readAudioFacts(testFlac(48_000, 16_000))).toEqual({
      format: 'flac',
      durationSeconds: 3,
    });
  });

  it('reads an MP3 file (after its ID3 tag) and adds up its frames', () => {
    const facts = readAudioFacts(testMp3(10));
    expect(facts?.format).toBe('mp3');
    expect(facts?.durationSeconds).toBeCloseTo((10 * 1152) / 44_100, 6);
  });

  it('knows nothing else: M4A, Ogg, text, empty', () => {
    const m4a = new Uint8Array([0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x4d, 0x34, 0x41]);
    for (const bytes of [m4a, new TextEncoder().encode('OggS....'), new Uint8Array(0)]) {
      expect(readAudioFacts(bytes)).toBeUndefined();
    }
  });
});

describe('assertAudioFile', () => {
  it('says what is accepted and what arrived', () => {
    expect(() => assertAudioFile(new TextEncoder().encode('hello'), 'file')).toThrow(
      /expected a WAV, MP3 or FLAC file, received 5 bytes? that are none of these \(first bytes: 68 65 6c 6c 6f\)/,
    );
    expect(() => assertAudioFile(new Uint8Array(0), 'file')).toThrow(/received an empty file/);
  });
});
