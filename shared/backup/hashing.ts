/** Streams bytes to a file (or nowhere) while counting them and computing their SHA-256. */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface Digest {
  readonly bytes: number;
  readonly sha256: string;
}

export function digestTap(): { tap: Transform; digest: () => Digest } {
  const hash = createHash('sha256');
  let bytes = 0;
  let hex: string | undefined;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { tap, digest: () => ({ bytes, sha256: (hex ??= hash.digest('hex')) }) };
}

export async function writeHashed(
  file: string,
  source: AsyncIterable<Buffer | string> | Readable,
): Promise<Digest> {
  const { tap, digest } = digestTap();
  const input = source instanceof Readable ? source : Readable.from(source);
  await pipeline(input, tap, createWriteStream(file, { mode: 0o600 }));
  return digest();
}

export async function hashStream(source: AsyncIterable<Buffer>): Promise<Digest> {
  const { tap, digest } = digestTap();
  const sink = new Writable({ write: (_c, _e, done) => done() });
  await pipeline(Readable.from(source), tap, sink);
  return digest();
}

export function hashFile(file: string): Promise<Digest> {
  return hashStream(createReadStream(file));
}
