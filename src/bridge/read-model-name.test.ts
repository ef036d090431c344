import { describe, expect, it } from 'vitest';
import { ModelNameSniffer, readModelName } from './read-model-name.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readModelName', () => {
  it('reads the top-level model of a JSON body', () => {
    expect(
      readModelName(bytes('{"messages":[{"content":"{\\"model\\":\\"no\\"}"}],"model":"m1"}')),
    ).toBe('m1');
    expect(readModelName(bytes('{"model":5}'))).toBeUndefined();
    expect(readModelName(bytes('{"prompt":"x"}'))).toBeUndefined();
    expect(readModelName(bytes(''))).toBeUndefined();
  });

  it('searches the start of a body too long to parse', () => {
    const long = `{"model":"hf.co/org/repo:Q4_K_M","images":["${'A'.repeat(100_000)}"]}`;
    expect(readModelName(bytes(long))).toBe('hf.co/org/repo:Q4_K_M');
  });
});

describe('ModelNameSniffer', () => {
  /** A form as OpenAI's SDK sends a transcription: the file first, then `model`. */
  function form(fileBytes: number): Uint8Array[] {
    const boundary = '----lmtab';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n` +
      'Content-Type: audio/wav\r\n\r\n';
    // The next field's value must not be taken for the model's.
    const tail =
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n` +
      `tiny-lfm2-audio\r\n--${boundary}\r\nContent-Disposition: form-data; name="language"\r\n\r\n` +
      `en\r\n--${boundary}--\r\n`;
    return [bytes(head), new Uint8Array(fileBytes).fill(0x52), bytes(tail)];
  }

  it("reads a form's model field after a file larger than the head it keeps", () => {
    const sniffer = new ModelNameSniffer();
    for (const piece of form(3 * 1024 * 1024)) {
      // Pieces of 1000 bytes, as a socket delivers them.
      for (let at = 0; at < piece.length; at += 1000) sniffer.push(piece.subarray(at, at + 1000));
    }
    expect(sniffer.name()).toBe('tiny-lfm2-audio');
  });

  it('reads a JSON body as readModelName does, and nothing from no body', () => {
    const sniffer = new ModelNameSniffer();
    expect(sniffer.empty).toBe(true);
    sniffer.push(bytes('{"model":"m1","messages":[]}'));
    expect(sniffer.name()).toBe('m1');
  });
});
