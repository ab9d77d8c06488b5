/**
 * Applying ARDELTA1 and ARDELTA2 patches in memory in tests: the old file from a buffer, the patch in chunks
 * of a chosen size, the output collected and hashed as the applier wrote it.
 */
import { createCipheriv, createHash } from 'node:crypto';
import {
  applyPatch,
  type ApplyTarget,
  type OldFile,
} from '../../device-client/protocol/delta/apply-patch';
import { DeltaPatchError } from '../../device-client/protocol/delta/format';
import { applyPatch2 } from '../../device-client/protocol/delta/apply-patch2';
import type { Scratch } from '../../device-client/protocol/delta/df-old';

export function bufferOld(bytes: Uint8Array): OldFile {
  return { size: bytes.length, read: (at, n) => Promise.resolve(bytes.subarray(at, at + n)) };
}

/** `bytes` as an async stream of `size`-byte chunks. */
export function chunked(bytes: Uint8Array, size = 1 << 20): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      let at = 0;
      return {
        next: () => {
          if (at >= bytes.length) return Promise.resolve({ done: true, value: undefined });
          const value = bytes.subarray(at, at + size);
          at += size;
          return Promise.resolve({ done: false, value });
        },
      };
    },
  };
}

type Applied = { bytes: Buffer; sha256: string };

/** What `run` writes to its target, and the SHA-256 the applier's hasher saw. */
async function collected(run: (target: ApplyTarget) => Promise<unknown>): Promise<Applied> {
  const out: Buffer[] = [];
  const sha = createHash('sha256');
  await run({ write: (c) => Promise.resolve(void out.push(Buffer.from(c))), hashers: [sha] });
  return { bytes: Buffer.concat(out), sha256: sha.digest('hex') };
}

/** Applies the inflated patch; the output and the SHA-256 the applier's hasher saw. */
export function applyInMemory(inflated: AsyncIterable<Uint8Array>, old: Uint8Array) {
  return collected((target) => applyPatch(inflated, bufferOld(old), target));
}

/** dfOld in memory: what a device keeps in a private temp file. */
export function memoryScratch(): Scratch {
  const parts: Buffer[] = [];
  return {
    append: (chunk) => Promise.resolve(void parts.push(Buffer.from(chunk))),
    finish: () => Promise.resolve(bufferOld(Buffer.concat(parts))),
  };
}

/** Applies an inflated ARDELTA2 patch, dfOld in memory. */
export function applyInMemory2(inflated: AsyncIterable<Uint8Array>, old: Uint8Array) {
  return collected((target) => applyPatch2(inflated, bufferOld(old), memoryScratch(), target));
}

/**
 * The format tests' helpers over hex strings: `apply` gives the output (checking the hasher saw
 * exactly it), `refusal` the word of the `DeltaPatchError` the patch is refused with.
 */
export function hexApplier(applyIn: typeof applyInMemory) {
  async function apply(oldHex: string, patchHex: string, chunk = 1 << 20): Promise<string> {
    const patch = chunked(Buffer.from(patchHex, 'hex'), chunk);
    const { bytes, sha256 } = await applyIn(patch, Buffer.from(oldHex, 'hex'));
    expect(sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    return bytes.toString('hex');
  }
  async function refusal(oldHex: string, patchHex: string): Promise<string> {
    try {
      await apply(oldHex, patchHex);
    } catch (err) {
      expect(err).toBeInstanceOf(DeltaPatchError);
      return (err as DeltaPatchError).code;
    }
    throw new Error('the patch was accepted');
  }
  return { apply, refusal };
}

/** One vector of a shared vector file (delta-vectors.json, delta2-vectors.json). */
export interface DeltaVector {
  name: string;
  old: string;
  patch: string;
  new?: string;
  newMd5?: string;
  newSha256?: string;
  error?: string;
}

/** The tests every vector gets: the exact bytes and hashes, or the refusal it names. */
export function vectorTests(vectors: DeltaVector[], apply: (v: DeltaVector) => Promise<Buffer>) {
  test.each(vectors.filter((v) => v.error === undefined).map((v) => [v.name, v] as const))(
    '%s: applies to the exact bytes and hashes',
    async (_name, v) => {
      const result = await apply(v);
      expect(result.toString('base64')).toBe(v.new);
      expect(createHash('md5').update(result).digest('hex')).toBe(v.newMd5);
      expect(createHash('sha256').update(result).digest('hex')).toBe(v.newSha256);
    },
  );
  test.each(vectors.filter((v) => v.error !== undefined).map((v) => [v.name, v] as const))(
    '%s: refused',
    async (_name, v) => {
      const refusal = await apply(v).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refusal).toBeInstanceOf(DeltaPatchError);
      expect((refusal as DeltaPatchError).code).toBe(v.error);
    },
  );
}

/** `count` words in a fixed pseudo-random order (an LCG): compressible text, like code. */
export function words(count: number): Buffer {
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india'];
  const out: string[] = [];
  for (let i = 0, x = 7; i < count; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(names[x % 9]! + (i % 50 === 0 ? `\n${i} ` : ' '));
  }
  return Buffer.from(out.join(''));
}

/**
 * `n` incompressible bytes, the same for the same seed (AES-128-CTR's keystream under a key made
 * of the seed): a suffix array has all of them to sort, and a ZIP stores them as they are.
 */
export function noise(n: number, seed: number): Buffer {
  const cipher = createCipheriv('aes-128-ctr', Buffer.alloc(16, seed), Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(n)), cipher.final()]);
}
