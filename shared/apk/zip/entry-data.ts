/**
 * Streams an entry's uncompressed bytes in bounded chunks. Stored data is read as is; any other
 * method is inflated with node:zlib `inflateRaw` (as Android does). Inflation stops with
 * `ZIP_BOMB` as soon as output exceeds the size the central directory declared, and ends with
 * `ZIP_MALFORMED_ENTRY_DATA` when it is shorter (apksig `LocalFileRecord.outputUncompressedData`).
 */
import { createInflateRaw } from 'node:zlib';
import { Readable } from 'node:stream';
import { ApkFormatError, ApkIssueCode } from '../issues';
import type { RandomAccessSource } from '../random-access';
import { READ_CHUNK_BYTES } from './limits';
import type { LocalRecord } from './local-file-record';
import type { ZipEntry } from './types';

/** Raw chunks of `length` bytes from `offset`, each at most `chunkSize`. */
export async function* readRange(
  source: RandomAccessSource,
  offset: number,
  length: number,
  chunkSize: number = READ_CHUNK_BYTES,
): AsyncGenerator<Buffer> {
  let done = 0;
  while (done < length) {
    const n = Math.min(chunkSize, length - done);
    yield await source.read(offset + done, n);
    done += n;
  }
}

async function* inflate(source: RandomAccessSource, record: LocalRecord): AsyncGenerator<Buffer> {
  const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
  const input = Readable.from(readRange(source, record.dataOffset, record.dataSize, 256 * 1024));
  input.on('error', (err) => inflater.destroy(err));
  input.pipe(inflater);
  try {
    for await (const chunk of inflater) yield chunk as Buffer;
  } catch (err) {
    if (err instanceof ApkFormatError) throw err;
    throw new ApkFormatError(
      ApkIssueCode.ZIP_MALFORMED_ENTRY_DATA,
      `cannot inflate entry: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    input.destroy();
    inflater.destroy();
  }
}

export async function* entryData(
  source: RandomAccessSource,
  entry: ZipEntry,
  record: LocalRecord,
): AsyncGenerator<Buffer> {
  const chunks = record.compressed
    ? inflate(source, record)
    : readRange(source, record.dataOffset, record.dataSize);
  let produced = 0;
  for await (const chunk of chunks) {
    produced += chunk.length;
    if (produced > entry.uncompressedSize) {
      await chunks.return(undefined);
      throw new ApkFormatError(
        ApkIssueCode.ZIP_BOMB,
        `entry ${entry.name} inflates past its declared ${entry.uncompressedSize} bytes`,
      );
    }
    yield chunk;
  }
  if (produced !== entry.uncompressedSize) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_MALFORMED_ENTRY_DATA,
      `Unexpected size of uncompressed data of ${entry.name}. Expected: ${entry.uncompressedSize}, actual: ${produced}`,
    );
  }
}
