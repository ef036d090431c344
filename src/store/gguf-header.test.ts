import { openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { encodeGguf, layoutGguf } from '../../tests/support/gguf-writer.js';
import type { GgufModel, GgufValue } from '../../tests/support/gguf-writer.js';
import {
  ensureFixtures,
  fixtureModel,
  fixtureSummaries,
  lfm2Model,
  lfm2Summary,
} from '../../tests/support/lfm2-fixtures.js';
import type { FixturePaths } from '../../tests/support/lfm2-fixtures.js';
import { readGgufHeader, readGgufSummary } from './gguf-header.js';

const fixtures = Object.keys(fixtureSummaries) as (keyof FixturePaths)[];

/** A Blob that records every slice it serves. */
function recordingBlob(source: Blob): { blob: Blob; reads: [number, number][] } {
  const reads: [number, number][] = [];
  const blob = {
    size: source.size,
    slice(start?: number, end?: number) {
      reads.push([start ?? 0, end ?? source.size]);
      return source.slice(start, end);
    },
  } as Blob;
  return { blob, reads };
}

/** A Blob of `size` bytes whose first bytes are `head` and the rest zeros, without allocating it. */
function sparseBlob(head: Uint8Array<ArrayBuffer>, size: number): Blob {
  return {
    size,
    slice(start = 0, end = size) {
      const from = Math.min(start, head.length);
      return new Blob([head.subarray(from, Math.min(end, head.length))]);
    },
  } as Blob;
}

function decoded(value: GgufValue): unknown {
  if (value.type !== 'float32') return value.value;
  return Math.fround(value.value);
}

async function expectInvalid(blob: Blob, message: string): Promise<void> {
  const error = await readGgufHeader(blob).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LmtabError);
  expect(error).toMatchObject({ code: 'invalid_request', status: 400, message });
}

describe('readGgufHeader', () => {
  it.each(fixtures)('round-trips the %s fixture written by the writer', async (fixture) => {
    const model = fixtureModel(fixture);
    const layout = layoutGguf(model);
    const header = await readGgufHeader(new Blob([encodeGguf(model)]));
    expect(header.version).toBe(3);
    expect(header.alignment).toBe(32);
    expect(header.dataOffset).toBe(layout.dataOffset);
    expect([...header.metadata.keys()]).toEqual(Object.keys(model.metadata));
    for (const [key, value] of Object.entries(model.metadata)) {
      const expected =
        value.type === 'array' && value.itemType === 'float32'
          ? value.value.map((v) => Math.fround(v))
          : decoded(value);
      expect(header.metadata.get(key), key).toEqual(expected);
    }
    const typeIds = { F32: 0, F16: 1, Q8_0: 8, Q4_K: 12, Q6_K: 14 };
    expect(header.tensors).toEqual(
      model.tensors.map((t, i) => ({
        name: t.name,
        dims: [...t.dims],
        type: typeIds[t.type],
        typeName: t.type,
        offset: layout.tensors[i].offset,
      })),
    );
  });

  it('reads a header larger than its first window in growing slices, never the whole file', async () => {
    const bytes = encodeGguf(fixtureModel('lfm2'));
    const { blob, reads } = recordingBlob(new Blob([bytes]));
    const header = await readGgufHeader(blob, { initialWindow: 512 });
    expect(header.metadata.get('tokenizer.ggml.tokens')).toHaveLength(512);
    expect(reads.length).toBeGreaterThan(3);
    const sizes = reads.map(([start, end]) => end - start);
    expect(sizes[1]).toBeGreaterThan(sizes[0]);
    expect(Math.max(...reads.map(([, end]) => end))).toBeLessThan(bytes.length);
  });

  it('reads a benchmark-size header without touching the gigabyte of tensor data', async () => {
    const layout = layoutGguf(lfm2Model({ size: '1.2B', type: 'Q8_0' }));
    const { blob, reads } = recordingBlob(sparseBlob(layout.header, layout.totalBytes));
    const summary = await readGgufSummary(blob);
    expect(summary).toEqual(lfm2Summary('1.2B', 'Q8_0'));
    expect(summary.parameterCount).toBeGreaterThan(1.1e9);
    expect(Math.max(...reads.map(([, end]) => end))).toBeLessThan(4 << 20);
  });

  it('rejects a file that is not GGUF, saying what arrived', async () => {
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08]);
    await expectInvalid(
      new Blob([zip]),
      'Expected a GGUF file (magic "GGUF" = 47 47 55 46, then version 2 or 3), ' +
        'but the first bytes are 50 4b 03 04 14 00 00 00 ("PK......").',
    );
    await expectInvalid(
      new Blob(['<!DOCTYPE html><html>']),
      'Expected a GGUF file (magic "GGUF" = 47 47 55 46, then version 2 or 3), ' +
        'but the first bytes are 3c 21 44 4f 43 54 59 50 ("<!DOCTYP").',
    );
    await expectInvalid(
      new Blob([]),
      'Expected a GGUF file (magic "GGUF" = 47 47 55 46, then version 2 or 3), but the file is empty.',
    );
  });

  it('rejects unsupported versions', async () => {
    const bytes = encodeGguf(fixtureModel('lfm2'));
    new DataView(bytes.buffer).setUint32(4, 1, true);
    await expectInvalid(
      new Blob([bytes]),
      'Expected GGUF version 2 or 3 (little-endian), but the file has version 1.',
    );
    new DataView(bytes.buffer).setUint32(4, 3, false);
    await expectInvalid(
      new Blob([bytes]),
      'Expected GGUF version 2 or 3 (little-endian), but the file has version 50331648 ' +
        '(a big-endian GGUF file).',
    );
  });

  it('reports a truncated header with the offset and what was being read', async () => {
    const bytes = encodeGguf(fixtureModel('lfm2'));
    await expectInvalid(
      new Blob([bytes.subarray(0, 6)]),
      'The GGUF header is truncated: reading the version needs 4 bytes at offset 4, ' +
        'but the file ends at byte 6.',
    );
    await expectInvalid(
      new Blob([bytes.subarray(0, 3000)]),
      'The GGUF header is truncated or corrupt: metadata value "tokenizer.ggml.tokens" declares ' +
        '512 string items of at least 8 bytes, but only 2317 bytes of the file remain.',
    );
    await expectInvalid(
      new Blob([bytes.subarray(0, 6990)]),
      'The GGUF header is truncated: reading metadata value "tokenizer.ggml.tokens" needs 8 bytes ' +
        'at offset 6984, but the file ends at byte 6990.',
    );
    await expectInvalid(
      new Blob([bytes.subarray(0, 30)]),
      'The GGUF header is truncated or corrupt: the header declares 40 tensors of at least 24 bytes, ' +
        'but only 14 bytes of the file remain.',
    );
  });

  it('reports tensor data cut short, as an interrupted download leaves it', async () => {
    const model = fixtureModel('lfm2');
    const bytes = encodeGguf(model);
    const layout = layoutGguf(model);
    const last = layout.tensors[layout.tensors.length - 1];
    await expectInvalid(
      new Blob([bytes.subarray(0, bytes.length - 1000)]),
      `The GGUF file is truncated: its tensor data ends at byte ${layout.dataOffset + last.offset + last.byteLength}, ` +
        `but the file has only ${bytes.length - 1000} bytes.`,
    );
  });
});

describe('readGgufSummary', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it.each(fixtures)('summarizes the %s fixture file on disk', async (fixture) => {
    const dir = await mkdtemp(join(tmpdir(), 'lmtab-gguf-'));
    dirs.push(dir);
    const paths = await ensureFixtures(dir);
    expect(await readGgufSummary(await openAsBlob(paths[fixture]))).toEqual(
      fixtureSummaries[fixture],
    );
  });

  it('names the quantization from general.file_type, else from the most common tensor type', async () => {
    const model = (metadata: GgufModel['metadata']): Blob =>
      new Blob([
        encodeGguf({
          metadata: { 'general.architecture': { type: 'string', value: 'llama' }, ...metadata },
          tensors: [
            { name: 'a', dims: [64, 4], type: 'Q8_0', data: { kind: 'constant', value: 1 } },
            { name: 'b', dims: [64], type: 'F32', data: { kind: 'constant', value: 1 } },
            { name: 'c', dims: [64], type: 'F32', data: { kind: 'constant', value: 1 } },
          ],
        }),
      ]);
    const quantization = async (fileType?: number): Promise<string> => {
      const metadata: GgufModel['metadata'] =
        fileType === undefined ? {} : { 'general.file_type': { type: 'uint32', value: fileType } };
      return (await readGgufSummary(model(metadata))).quantization;
    };
    expect(await quantization()).toBe('Q8_0');
    expect(await quantization(15)).toBe('Q4_K_M');
    expect(await quantization(32)).toBe('BF16');
    expect(await quantization(1024 + 18)).toBe('Q6_K');
    expect(await quantization(999)).toBe('Q8_0');
    const summary = await readGgufSummary(model({}));
    expect(summary).toEqual({
      architecture: 'llama',
      parameterCount: 64 * 4 + 64 + 64,
      quantization: 'Q8_0',
      fileKind: 'model',
    });
  });
});
