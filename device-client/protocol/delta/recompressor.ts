/**
 * The last stage of applying an ARDELTA2 patch: dfNew arrives in order from the records and leaves
 * as the final file. Bytes outside the plan's new ranges pass through; the bytes of a range go to
 * a pako raw deflater with the range's settings, finished (Z_FINISH) at the range's end, and its
 * output is what is written. The output is hashed as it is written, and a final file that would
 * pass the announced size is refused (`size`) as soon as it does.
 */
import { Deflate } from 'pako';
import type { ApplyTarget } from './apply-patch';
import { DeltaPatchError } from './format';
import type { DeflateParams, NewRange } from './format2';

/**
 * A raw deflater with `params` whose output goes to `sink`, in `chunkSize` pieces (the output
 * bytes do not depend on it; the server's divination takes small ones to stop early).
 */
export function rawDeflater(
  params: DeflateParams,
  sink: (chunk: Uint8Array) => void,
  chunkSize = 64 * 1024,
): Deflate {
  const deflater = new Deflate({
    raw: true,
    level: params.level as 1,
    strategy: params.strategy as 0,
    memLevel: params.memLevel,
    windowBits: params.windowBits,
    chunkSize,
  });
  deflater.onData = (chunk) => sink(chunk as Uint8Array);
  return deflater;
}

export class Recompressor implements ApplyTarget {
  private dfPos = 0;
  private written = 0;
  private index = 0;
  private deflater: Deflate | null = null;
  private pending: Uint8Array[] = [];

  constructor(
    private readonly ranges: readonly NewRange[],
    private readonly newSize: number,
    private readonly out: ApplyTarget,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    let at = 0;
    while (at < chunk.length) {
      await this.closeRanges();
      const range = this.ranges[this.index];
      const start = range?.offset ?? Infinity;
      const end = range === undefined ? Infinity : range.offset + range.inflatedLength;
      const stop = Math.min(chunk.length, at + ((this.dfPos < start ? start : end) - this.dfPos));
      const piece = chunk.subarray(at, stop);
      if (this.dfPos < start) await this.emit(piece);
      else this.compress(range!, piece);
      at = stop;
      this.dfPos += piece.length;
    }
    await this.closeRanges();
  }

  /** The final size; refuses a file of another size than announced. */
  async end(): Promise<number> {
    await this.closeRanges();
    if (this.written !== this.newSize) {
      throw new DeltaPatchError(
        'size',
        `the patch gives ${this.written} bytes, not ${this.newSize}`,
      );
    }
    return this.written;
  }

  private compress(range: NewRange, piece: Uint8Array): void {
    this.deflater ??= rawDeflater(range, (c) => this.pending.push(c.slice()));
    this.deflater.push(piece, false);
  }

  /** Finishes every range that ends here (empty ones too) and writes their output. */
  private async closeRanges(): Promise<void> {
    for (;;) {
      const range = this.ranges[this.index];
      if (range === undefined || range.offset + range.inflatedLength !== this.dfPos) break;
      this.compress(range, new Uint8Array(0));
      this.deflater!.push(new Uint8Array(0), true);
      this.deflater = null;
      this.index++;
      await this.flush();
    }
    await this.flush();
  }

  private async flush(): Promise<void> {
    const chunks = this.pending;
    this.pending = [];
    for (const chunk of chunks) await this.emit(chunk);
  }

  private async emit(chunk: Uint8Array): Promise<void> {
    this.written += chunk.length;
    if (this.written > this.newSize) {
      throw new DeltaPatchError('size', 'the patch gives more bytes than the new size');
    }
    for (const hasher of this.out.hashers ?? []) hasher.update(chunk);
    await this.out.write(chunk);
  }
}
