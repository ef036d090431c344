/** A reader of a wasm binary's bytes, LEB128 numbers, names and limits, from `at` on. */
export class WasmReader {
  constructor(
    readonly bytes: Uint8Array,
    public at = 0,
  ) {}

  byte(): number {
    if (this.at >= this.bytes.length) throw new Error('the wasm file ends inside a section');
    return this.bytes[this.at++]!;
  }

  /** An unsigned LEB128 number. */
  leb(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
  }

  /** A signed LEB128 constant that must not be negative (a segment's offset). */
  offset(): number {
    const start = this.at;
    const value = this.leb();
    if (this.bytes[this.at - 1]! & 0x40) throw new Error(`a negative constant at byte ${start}`);
    return value;
  }

  /** A name: its UTF-8 length, then its bytes. */
  name(): string {
    const length = this.leb();
    const text = new TextDecoder().decode(this.bytes.subarray(this.at, this.at + length));
    this.at += length;
    return text;
  }

  skip(count: number): void {
    this.at += count;
  }

  /** Skips a table's or memory's limits; answers where its maximum is, if it has one. */
  limits(): { maxAt?: number; maxEnd?: number; flags: number } {
    const flags = this.byte();
    this.leb();
    if ((flags & 1) === 0) return { flags };
    const maxAt = this.at;
    this.leb();
    return { flags, maxAt, maxEnd: this.at };
  }
}
