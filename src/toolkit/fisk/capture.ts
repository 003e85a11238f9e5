/**
 * Output held to a fixed budget as a head and a tail, so a runaway command cannot grow this
 * process: the first half of the budget is kept as it arrives, the rest is a ring of the latest
 * bytes, and the gap between them is marked.
 */

/** The output budget of one command: 64 KiB. */
export const OUTPUT_CAP = 64 * 1024;

/** What replaces the dropped middle of an over-budget output. */
export const TRUNCATION_MARKER = '\n...[output truncated]...\n';

/** A bounded output sink: head and tail of a stream, with the byte count of all of it. */
export class HeadTailCapture {
  readonly #half: number;
  readonly #head: Buffer;
  #headLen = 0;
  readonly #tail: Buffer;
  #tailStart = 0;
  #tailLen = 0;
  #total = 0;

  constructor(cap = OUTPUT_CAP) {
    this.#half = Math.floor(cap / 2);
    this.#head = Buffer.alloc(this.#half);
    this.#tail = Buffer.alloc(cap - this.#half);
  }

  /** Bytes written so far, kept or not. */
  get total(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.#head.length + this.#tail.length;
  }

  write(chunk: Buffer): void {
    this.#total += chunk.length;
    let data = chunk;
    if (this.#headLen < this.#head.length) {
      const n = Math.min(data.length, this.#head.length - this.#headLen);
      data.copy(this.#head, this.#headLen, 0, n);
      this.#headLen += n;
      data = data.subarray(n);
    }
    if (data.length === 0) return;
    const size = this.#tail.length;
    if (data.length >= size) {
      data.copy(this.#tail, 0, data.length - size);
      this.#tailStart = 0;
      this.#tailLen = size;
      return;
    }
    const end = (this.#tailStart + this.#tailLen) % size;
    const first = Math.min(data.length, size - end);
    data.copy(this.#tail, end, 0, first);
    data.copy(this.#tail, 0, first);
    const grown = this.#tailLen + data.length;
    if (grown > size) {
      this.#tailStart = (this.#tailStart + grown - size) % size;
      this.#tailLen = size;
    } else {
      this.#tailLen = grown;
    }
  }

  #tailBytes(): Buffer {
    const size = this.#tail.length;
    if (this.#tailStart + this.#tailLen <= size) return this.#tail.subarray(this.#tailStart, this.#tailStart + this.#tailLen);
    return Buffer.concat([this.#tail.subarray(this.#tailStart), this.#tail.subarray(0, (this.#tailStart + this.#tailLen) % size)]);
  }

  /** The kept output as text, with the marker between head and tail when bytes were dropped. */
  text(): string {
    const head = this.#head.subarray(0, this.#headLen);
    const tail = this.#tailBytes();
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8');
    // A cut can split a character; the decoder substitutes U+FFFD for the broken ends.
    return `${head.toString('utf8')}${TRUNCATION_MARKER}${tail.toString('utf8')}`;
  }
}
