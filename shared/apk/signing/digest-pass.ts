/**
 * One sequential pass over the whole file, in fixed-size reads, computing at once: the whole-file
 * SHA-256 and MD5, and the APK Signature Scheme content digests over
 * [entries before the signing block][central directory][EOCD whose CD offset points at the
 * signing block]: 1 MiB chunked SHA-256/SHA-512 and the verity tree root. Port of AOSP apksig
 * `ApkSigningBlockUtils.verifyIntegrity` / `computeOneMbChunkContentDigests` /
 * `computeApkVerityDigest`, restructured so no chunk list or tree is held in memory.
 */
import { createHash, type Hash } from 'node:crypto';
import type { RandomAccessSource } from '../random-access';
import { READ_CHUNK_BYTES } from '../zip/limits';
import type { ZipSections } from '../zip/types';
import type { ContentDigestAlgorithm } from './signature-algorithms';
import { localHash, OffThreadHash, type StreamHash } from './off-thread-hash';
import { VerityTreeHasher } from './verity-tree';

/** From this size on, MD5 (the slowest digest) runs on a worker thread in parallel. */
export const OFF_THREAD_MD5_MIN_BYTES = 16 * 1024 * 1024;

const CHUNK = 1024 * 1024;

/** apksig's chunked digest: H(0x5a | count | H(0xa5 | len | chunk)...), streamed. */
class ChunkedDigest {
  private readonly outer: Hash;
  private chunk: Hash | null = null;
  private chunkLeft = 0;
  private sectionLeft = 0;

  constructor(
    private readonly hash: 'sha256' | 'sha512',
    chunkCount: number,
  ) {
    const head = Buffer.alloc(5);
    head[0] = 0x5a;
    head.writeUInt32LE(chunkCount, 1);
    this.outer = createHash(hash).update(head);
  }

  beginSection(length: number): void {
    this.sectionLeft = length;
  }

  update(data: Buffer): void {
    let pos = 0;
    while (pos < data.length) {
      if (this.chunk === null) {
        const size = Math.min(CHUNK, this.sectionLeft);
        const prefix = Buffer.alloc(5);
        prefix[0] = 0xa5;
        prefix.writeUInt32LE(size, 1);
        this.chunk = createHash(this.hash).update(prefix);
        this.chunkLeft = size;
      }
      const n = Math.min(this.chunkLeft, data.length - pos);
      this.chunk.update(data.subarray(pos, pos + n));
      pos += n;
      this.chunkLeft -= n;
      this.sectionLeft -= n;
      if (this.chunkLeft === 0) {
        this.outer.update(this.chunk.digest());
        this.chunk = null;
      }
    }
  }

  digest(): Buffer {
    return this.outer.digest();
  }
}

export interface DigestPassResult {
  readonly sha256: string;
  readonly md5: string;
  readonly contentDigests: Map<ContentDigestAlgorithm, Buffer>;
}

const chunks = (n: number): number => Math.ceil(n / CHUNK);

/**
 * Streams `source` once. Without sections or a signing block only the whole-file hashes are computed.
 */
export async function runDigestPass(
  source: RandomAccessSource,
  sections: ZipSections | null,
  signingBlockOffset: number | null,
  algorithms: ReadonlySet<ContentDigestAlgorithm>,
): Promise<DigestPassResult> {
  const md5 = source.size < OFF_THREAD_MD5_MIN_BYTES ? localHash('md5') : new OffThreadHash('md5');
  try {
    return await pass(source, sections, signingBlockOffset, algorithms, md5);
  } finally {
    await md5.close();
  }
}

async function pass(
  source: RandomAccessSource,
  sections: ZipSections | null,
  signingBlockOffset: number | null,
  algorithms: ReadonlySet<ContentDigestAlgorithm>,
  md5: StreamHash,
): Promise<DigestPassResult> {
  const sha256 = createHash('sha256');
  const sb = sections === null ? null : signingBlockOffset;
  const sinks: Array<{ begin(n: number): void; update(b: Buffer): void }> = [];
  const finals = new Map<ContentDigestAlgorithm, () => Buffer>();
  if (sb !== null && sections !== null) {
    const count = chunks(sb) + chunks(sections.cdSize) + chunks(sections.eocd.length);
    for (const alg of algorithms) {
      if (alg === 'VERITY_CHUNKED_SHA256') {
        const v = new VerityTreeHasher();
        sinks.push({ begin: () => undefined, update: (b) => v.update(b) });
        finals.set(alg, () => v.digest());
      } else {
        const d = new ChunkedDigest(alg === 'CHUNKED_SHA512' ? 'sha512' : 'sha256', count);
        sinks.push({ begin: (n) => d.beginSection(n), update: (b) => d.update(b) });
        finals.set(alg, () => d.digest());
      }
    }
  }
  const feed = (b: Buffer): void => sinks.forEach((s) => s.update(b));
  const begin = (n: number): void => sinks.forEach((s) => s.begin(n));
  const cdStart = sections?.cdOffset ?? 0;
  const cdSize = sections?.cdSize ?? 0;
  const cdEnd = cdStart + cdSize;
  if (sb !== null) begin(sb);
  let next: Promise<Buffer> | null =
    source.size > 0 ? source.read(0, Math.min(READ_CHUNK_BYTES, source.size)) : null;
  for (let off = 0; next !== null;) {
    const buf = await next;
    const end = off + buf.length;
    next =
      end < source.size ? source.read(end, Math.min(READ_CHUNK_BYTES, source.size - end)) : null;
    next?.catch(() => undefined); // awaited next round; never an unhandled rejection meanwhile
    const md5Done = md5.update(buf);
    sha256.update(buf);
    if (sb !== null) {
      if (off < sb) feed(buf.subarray(0, Math.min(buf.length, sb - off)));
      if (end > cdStart && off < cdEnd) {
        if (off <= cdStart) begin(cdSize);
        feed(buf.subarray(Math.max(0, cdStart - off), Math.min(buf.length, cdEnd - off)));
      }
    }
    await md5Done;
    off = end;
  }
  if (sb !== null && sections !== null) {
    const eocd = Buffer.from(sections.eocd);
    eocd.writeUInt32LE(sb, 16);
    begin(eocd.length);
    feed(eocd);
  }
  const contentDigests = new Map<ContentDigestAlgorithm, Buffer>();
  for (const [alg, fin] of finals) contentDigests.set(alg, fin());
  return { sha256: sha256.digest('hex'), md5: await md5.digest(), contentDigests };
}
