/**
 * Streaming root hash of the APK verity Merkle tree (4 KiB blocks, SHA-256 salted with 8 zero
 * bytes, each level zero-padded to whole blocks), as used by the VERITY_CHUNKED_SHA256 content
 * digest. Port of AOSP apksig `internal/util/VerityTreeBuilder.generateVerityTreeRootHash`,
 * computed level by level as data streams in, so memory is a few blocks per level.
 */
import { createHash } from 'node:crypto';

const BLOCK = 4096;
const SALT = Buffer.alloc(8);

function saltedDigest(block: Buffer): Buffer {
  return createHash('sha256').update(SALT).update(block).digest();
}

class Level {
  readonly buf = Buffer.alloc(BLOCK);
  fill = 0;
  total = 0;
}

export class VerityTreeHasher {
  private readonly levels: Level[] = [new Level()];
  private dataSize = 0;

  update(data: Buffer): void {
    this.dataSize += data.length;
    this.append(0, data);
  }

  private level(i: number): Level {
    let l = this.levels[i];
    if (l === undefined) {
      l = new Level();
      this.levels[i] = l;
    }
    return l;
  }

  private append(i: number, data: Buffer): void {
    const l = this.level(i);
    l.total += data.length;
    let pos = 0;
    while (pos < data.length) {
      const n = Math.min(BLOCK - l.fill, data.length - pos);
      data.copy(l.buf, l.fill, pos, pos + n);
      l.fill += n;
      pos += n;
      if (l.fill === BLOCK) this.emit(i);
    }
  }

  private emit(i: number): void {
    const l = this.level(i);
    l.buf.fill(0, l.fill);
    const digest = saltedDigest(l.buf);
    l.fill = 0;
    this.append(i + 1, digest);
  }

  /** Root hash followed by the uint64 LE data size (apksig `computeApkVerityDigest`). */
  digest(): Buffer {
    if (this.level(0).fill > 0) this.emit(0);
    let root: Buffer | undefined;
    for (let i = 1; root === undefined; i++) {
      const l = this.level(i);
      if (l.total <= BLOCK) {
        if (l.fill > 0 || l.total === 0) {
          l.buf.fill(0, l.fill);
          root = saltedDigest(l.buf);
        } else {
          root = Buffer.from(this.level(i + 1).buf.subarray(0, 32));
        }
      } else if (l.fill > 0) {
        this.emit(i);
      }
    }
    const size = Buffer.alloc(8);
    size.writeBigUInt64LE(BigInt(this.dataSize));
    return Buffer.concat([root, size]);
  }
}
