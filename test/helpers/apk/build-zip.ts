/**
 * Writes ZIP archives in memory for tests: the unit tests' small archives (`buildZip`) and the
 * fuzzers' rewritten fixtures (`writeZip`, through test/resilience/fuzz/lib/zip-layout.ts). The
 * writer itself is ops/protocol/zip-writer.ts, shared with the ARDELTA2 vectors' generator.
 */
import { deflateRawSync } from 'node:zlib';
import { writeZip } from '../../../ops/protocol/zip-writer';

export { writeZip, type ZipEntrySpec, type ZipSpec } from '../../../ops/protocol/zip-writer';

export interface TestZipEntry {
  name: string | Buffer;
  data: Buffer;
  deflate?: boolean;
  /** Overrides applied to the local header only. */
  localName?: string;
  localUncompressedSize?: number;
  /** Overrides applied to the central directory record only. */
  cdUncompressedSize?: number;
  cdMethod?: number;
}

/** A small archive of stored or deflated entries, with the tweaks above. */
export function buildZip(
  entries: TestZipEntry[],
  opts: { comment?: Buffer; recordCount?: number; beforeCd?: Buffer } = {},
): Buffer {
  return writeZip(
    {
      entries: entries.map((e) => ({
        name: typeof e.name === 'string' ? Buffer.from(e.name, 'utf8') : e.name,
        method: e.deflate ? 8 : 0,
        data: e.data,
        ...(e.deflate ? { raw: deflateRawSync(e.data) } : {}),
        local: {
          ...(e.localName === undefined ? {} : { name: Buffer.from(e.localName, 'utf8') }),
          ...(e.localUncompressedSize === undefined
            ? {}
            : { uncompressedSize: e.localUncompressedSize }),
        },
        central: {
          ...(e.cdMethod === undefined ? {} : { method: e.cdMethod }),
          ...(e.cdUncompressedSize === undefined ? {} : { uncompressedSize: e.cdUncompressedSize }),
        },
      })),
      beforeCd: opts.beforeCd ?? Buffer.alloc(0),
      comment: opts.comment ?? Buffer.alloc(0),
    },
    opts.recordCount === undefined ? {} : { recordCount: opts.recordCount },
  );
}
