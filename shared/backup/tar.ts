/**
 * A minimal streaming ustar writer and reader: regular files only, names under 100 bytes, sizes of
 * any length (GNU base-256 above 8 GiB). Enough for backup archives, with no dependency; gzip is
 * the caller's business (node:zlib).
 */
import { createReadStream } from 'node:fs';
import { PayloadInvalid, AppError } from '../errors';

const BLOCK = 512;
const MAX_OCTAL_SIZE = 8 ** 11 - 1;

export interface TarInput {
  /** Path inside the archive (ASCII, under 100 bytes). */
  readonly name: string;
  /** File on disk whose bytes become the entry. */
  readonly file: string;
  readonly size: number;
}

export interface TarEntry {
  readonly name: string;
  readonly size: number;
  /** Must be consumed (or abandoned) before the next entry is requested. */
  readonly body: AsyncIterable<Buffer>;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

export function tarHeader(name: string, size: number, mtime: Date): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length >= 100 || !/^[\x21-\x7e]+$/.test(name)) {
    throw new Error(`tar: unsupported entry name ${JSON.stringify(name)}`);
  }
  const h = Buffer.alloc(BLOCK, 0);
  nameBytes.copy(h, 0);
  h.write(octal(0o600, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  if (size <= MAX_OCTAL_SIZE) {
    h.write(octal(size, 12), 124, 'ascii');
  } else {
    h[124] = 0x80;
    h.writeBigUInt64BE(BigInt(size), 128);
  }
  h.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  const sum = h.reduce((acc, b) => acc + b, 0);
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return h;
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK, 0);
}

/** The bytes of a tar archive holding `inputs`, in order, read from disk as they are needed. */
export async function* tarStream(inputs: readonly TarInput[], mtime: Date): AsyncGenerator<Buffer> {
  for (const input of inputs) {
    yield tarHeader(input.name, input.size, mtime);
    let seen = 0;
    for await (const chunk of createReadStream(input.file) as AsyncIterable<Buffer>) {
      seen += chunk.length;
      yield chunk;
    }
    if (seen !== input.size) {
      throw new AppError('STORE_INCONSISTENT', {
        message: `tar: ${input.file} changed while archiving`,
      });
    }
    yield padding(input.size);
  }
  yield Buffer.alloc(2 * BLOCK, 0);
}

function parseSize(field: Buffer): number {
  if (((field[0] ?? 0) & 0x80) !== 0) return Number(field.readBigUInt64BE(4));
  const text = field.toString('ascii').replace(/\0.*$/s, '').trim();
  if (!/^[0-7]+$/.test(text)) throw new PayloadInvalid('tar', 'malformed size field');
  return parseInt(text, 8);
}

function checkHeader(h: Buffer): void {
  const stored = parseInt(h.subarray(148, 156).toString('ascii').replace(/\0.*$/s, '').trim(), 8);
  const copy = Buffer.from(h);
  copy.write('        ', 148, 'ascii');
  if (copy.reduce((acc, b) => acc + b, 0) !== stored)
    throw new PayloadInvalid('tar', 'header checksum');
}

/** Entries of a tar byte stream; throws on a truncated or corrupted archive. */
export async function* tarEntries(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const it = source[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  const fill = async (n: number): Promise<void> => {
    while (buf.length < n) {
      const r = await it.next();
      if (r.done) throw new PayloadInvalid('tar', 'truncated archive');
      buf = buf.length === 0 ? r.value : Buffer.concat([buf, r.value]);
    }
  };
  for (;;) {
    await fill(BLOCK);
    const header = buf.subarray(0, BLOCK);
    buf = buf.subarray(BLOCK);
    if (header.every((b) => b === 0)) return;
    checkHeader(header);
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseSize(header.subarray(124, 136));
    let remaining = size;
    async function* body(): AsyncGenerator<Buffer> {
      while (remaining > 0) {
        if (buf.length === 0) await fill(1);
        const take = Math.min(remaining, buf.length);
        const chunk = buf.subarray(0, take);
        buf = buf.subarray(take);
        remaining -= take;
        yield chunk;
      }
    }
    yield { name, size, body: body() };
    for await (const _ of body()) void _;
    const pad = padding(size).length;
    await fill(pad);
    buf = buf.subarray(pad);
  }
}
