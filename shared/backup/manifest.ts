/**
 * The backup archive format (version 1): a gzip'd tar whose first entry is `manifest.json`, then
 * one `collections/<name>.ejson` per collection (canonical Extended JSON, one document per line;
 * GridFS `<bucket>.files` collections included) and one `gridfs/<bucket>/<n>.bin` per GridFS file
 * (its stored bytes as they are: APKs stay encrypted). The manifest lists every part with its
 * size, SHA-256 and document count. The master key is never part of an archive.
 */
import { DateTime } from 'luxon';
import { PayloadInvalid } from '../errors';

export const MANIFEST_NAME = 'manifest.json';
export const FORMAT = 'apkrelay-backup';

export type Part =
  | {
      readonly kind: 'collection';
      readonly path: string;
      readonly collection: string;
      readonly count: number;
      readonly bytes: number;
      readonly sha256: string;
    }
  | {
      readonly kind: 'gridfs';
      readonly path: string;
      readonly bucket: string;
      /** The file's `_id` as canonical Extended JSON. */
      readonly fileId: string;
      readonly chunkSize: number;
      readonly bytes: number;
      readonly sha256: string;
    };

export interface Manifest {
  readonly format: typeof FORMAT;
  readonly version: 1;
  readonly createdAt: string;
  readonly database: string;
  /** Documents per collection. */
  readonly collections: Readonly<Record<string, number>>;
  /** GridFS files, all buckets together. */
  readonly files: number;
  readonly parts: readonly Part[];
}

export function parseManifest(text: string): Manifest {
  const m = JSON.parse(text) as Partial<Manifest>;
  if (m.format !== FORMAT || m.version !== 1 || !Array.isArray(m.parts)) {
    throw new PayloadInvalid('backup', 'not an apkrelay backup manifest (format 1)');
  }
  return m as Manifest;
}

const ARCHIVE_NAME = /^apkrelay-(\d{8}T\d{9}Z)\.tar\.gz$/;
const STAMP = "yyyyMMdd'T'HHmmssSSS'Z'";

/** `apkrelay-20261121T023000000Z.tar.gz`: the UTC instant the backup is for. */
export function archiveName(at: Date): string {
  return `apkrelay-${DateTime.fromJSDate(at, { zone: 'utc' }).toFormat(STAMP)}.tar.gz`;
}

/** The instant an archive name stands for, or null for any other file. */
export function archiveTime(name: string): Date | null {
  const stamp = ARCHIVE_NAME.exec(name)?.[1];
  if (!stamp) return null;
  const parsed = DateTime.fromFormat(stamp, STAMP, { zone: 'utc' });
  return parsed.isValid ? parsed.toJSDate() : null;
}

/** Sidecar with the archive's SHA-256, in `sha256sum` format. */
export function sidecarName(archive: string): string {
  return `${archive}.sha256`;
}
