import { LmtabError } from '../../errors/index.js';
import { describeBytes } from '../body/describe-bytes.js';

/** The audio files the engine reads (llama.cpp's decoder), as named in errors. */
export const acceptedAudioFormats = 'WAV, MP3 or FLAC';

/** An audio file's format and length, read from its own headers. */
export interface AudioFileFacts {
  /** The engine's `AudioFormat` (spelled here too: this file runs on both sides of the relay). */
  format: 'wav' | 'mp3' | 'flac';
  /** Seconds of audio, when the headers say (WAV, FLAC) or the frames add up (MP3). */
  durationSeconds?: number;
}

/** What an audio file is, from its first bytes; undefined for anything but WAV, MP3 and FLAC. */
export function readAudioFacts(bytes: Uint8Array): AudioFileFacts | undefined {
  const ascii = (at: number, length: number) =>
    String.fromCharCode(...bytes.subarray(at, at + length));
  if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WAVE') return wavFacts(bytes);
  if (ascii(0, 4) === 'fLaC') return flacFacts(bytes);
  const start = ascii(0, 3) === 'ID3' ? id3Length(bytes) : 0;
  if (mp3Frame(bytes, start) !== undefined) return { format: 'mp3', ...mp3Duration(bytes, start) };
  return undefined;
}

/**
 * The facts of an audio file sent at `param`, or a 400 that says what arrived: an empty file, or
 * bytes that are none of the formats the engine reads (with their first bytes, in hex).
 */
export function assertAudioFile(bytes: Uint8Array, param: string): AudioFileFacts {
  const facts = readAudioFacts(bytes);
  if (facts !== undefined) return facts;
  const head = Array.from(bytes.slice(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw new LmtabError(
    'invalid_request',
    `Invalid audio at \`${param}\`: expected a ${acceptedAudioFormats} file, received ` +
      (bytes.length === 0
        ? 'an empty file.'
        : `${describeBytes(bytes.length)} that are none of these (first bytes: ${head}). ` +
          'Convert it first, e.g. `ffmpeg -i in.m4a out.wav`.'),
    { param },
  );
}

/** A RIFF WAVE file: its `fmt ` chunk's byte rate and its `data` chunk's length. */
function wavFacts(bytes: Uint8Array): AudioFileFacts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let byteRate: number | undefined;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = String.fromCharCode(...bytes.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 20 <= bytes.length) byteRate = view.getUint32(at + 16, true);
    if (id === 'data') {
      // A streamed WAV may declare 0 or 0xFFFFFFFF: the bytes present count then.
      const length = size === 0 || size === 0xffffffff ? bytes.length - at - 8 : size;
      return byteRate ? { format: 'wav', durationSeconds: length / byteRate } : { format: 'wav' };
    }
    at += 8 + size + (size % 2);
  }
  return { format: 'wav' };
}

/** A FLAC file: its STREAMINFO block's sample rate and total samples. */
function flacFacts(bytes: Uint8Array): AudioFileFacts {
  if (bytes.length < 26 || (bytes[4]! & 0x7f) !== 0) return { format: 'flac' };
  const info = bytes.subarray(8);
  const rate = (info[10]! << 12) | (info[11]! << 4) | (info[12]! >> 4);
  const samples =
    (info[13]! & 0x0f) * 2 ** 32 + new DataView(info.buffer, info.byteOffset).getUint32(14);
  return rate > 0 && samples > 0
    ? { format: 'flac', durationSeconds: samples / rate }
    : { format: 'flac' };
}

/** Bytes of an ID3v2 tag (header, syncsafe size, footer). */
function id3Length(bytes: Uint8Array): number {
  if (bytes.length < 10) return 0;
  const size =
    ((bytes[6]! & 0x7f) << 21) |
    ((bytes[7]! & 0x7f) << 14) |
    ((bytes[8]! & 0x7f) << 7) |
    (bytes[9]! & 0x7f);
  return 10 + size + (bytes[5]! & 0x10 ? 10 : 0);
}

/** MPEG audio layer III bit rates (kbit/s) by index: MPEG-1, then MPEG-2 and 2.5. */
const bitRates = {
  mpeg1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  mpeg2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const sampleRates = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** A layer III frame header at `at`: its length in bytes and samples, or undefined. */
function mp3Frame(
  bytes: Uint8Array,
  at: number,
): { length: number; samples: number; rate: number } | undefined {
  if (at + 4 > bytes.length || bytes[at] !== 0xff || (bytes[at + 1]! & 0xe0) !== 0xe0)
    return undefined;
  const version = (bytes[at + 1]! >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
  const layer = (bytes[at + 1]! >> 1) & 3; // 1 = layer III
  const rateIndex = bytes[at + 2]! >> 4;
  const sampleIndex = (bytes[at + 2]! >> 2) & 3;
  if (version === 1 || layer !== 1 || rateIndex === 0 || rateIndex === 15 || sampleIndex === 3) {
    return undefined;
  }
  const mpeg1 = version === 3;
  const kbps = (mpeg1 ? bitRates.mpeg1 : bitRates.mpeg2)[rateIndex]!;
  const rate = sampleRates[version as 3 | 2 | 0][sampleIndex]!;
  const padding = (bytes[at + 2]! >> 1) & 1;
  const samples = mpeg1 ? 1152 : 576;
  return { length: Math.floor(((samples / 8) * kbps * 1000) / rate) + padding, samples, rate };
}

/** The length of an MP3 stream, summed over its frames (variable bit rates included). */
function mp3Duration(bytes: Uint8Array, start: number): { durationSeconds?: number } {
  let seconds = 0;
  let at = start;
  for (;;) {
    const frame = mp3Frame(bytes, at);
    if (frame === undefined) break;
    seconds += frame.samples / frame.rate;
    at += frame.length;
  }
  return seconds > 0 ? { durationSeconds: seconds } : {};
}
