/**
 * The encrypted, authenticated envelope of a backup archive: the whole gzip'd tar is sealed with
 * the segmented AES-256-GCM of APKs at rest (segmented-aead.ts), under a key derived for this
 * archive alone from the master key's `backup` sub-key and a random salt. The header names the
 * master key by its id, so an archive written before a rotation opens while its key is still
 * configured (MASTER_KEY_PREVIOUS).
 *
 *   magic "APKRBAK2" (8) | master key id (4) | salt (16) | nonce prefix (7) | segments...
 *
 * Every header byte is bound: the magic and key id are checked, the salt feeds the key, the
 * prefix feeds every nonce, so a flipped bit anywhere, a cut or an extension fails a segment's tag.
 * The `.sha256` sidecar stays as a quick, unkeyed check; authenticity rests on this envelope.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { PassThrough, type Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { KeyRing } from '../crypto/keys';
import {
  NONCE_PREFIX_SIZE,
  SegmentAuthError,
  SegmentDecryptor,
  SegmentEncryptor,
  newNoncePrefix,
} from '../crypto/segmented-aead';
import { AppError } from '../errors';

const MAGIC = Buffer.from('APKRBAK2');
const SALT_SIZE = 16;
const ID_SIZE = 4;
export const HEADER_SIZE = MAGIC.length + ID_SIZE + SALT_SIZE + NONCE_PREFIX_SIZE;

/** A backup archive that fails its authentication (STORED_DATA_UNAUTHENTIC): nothing restored. */
export class BackupAuthError extends AppError {
  constructor(detail: string) {
    super('STORED_DATA_UNAUTHENTIC', {
      message:
        `backup archive failed authentication: ${detail} ` +
        '(tampered, damaged, or written under another MASTER_KEY); nothing was restored',
    });
    this.name = 'BackupAuthError';
  }
}

function archiveKey(backupKey: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', backupKey, salt, 'apkrelay/backup-archive', 32));
}

/** The header to write first, and the transform that seals what follows. */
export function sealArchive(keys: KeyRing): { header: Buffer; encryptor: Transform } {
  const salt = randomBytes(SALT_SIZE);
  const prefix = newNoncePrefix();
  const header = Buffer.concat([MAGIC, Buffer.from(keys.id, 'hex'), salt, prefix]);
  const key = archiveKey(keys.subkey('backup'), salt);
  return { header, encryptor: new SegmentEncryptor(key, prefix) };
}

async function readHeader(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const header = Buffer.alloc(HEADER_SIZE);
    const { bytesRead } = await handle.read(header, 0, HEADER_SIZE, 0);
    return header.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The archive's plaintext (the tar), authenticated as it streams: a tampered segment makes the
 * stream fail with BackupAuthError before its bytes are passed on.
 */
export async function openArchive(file: string, keys: KeyRing): Promise<Readable> {
  const header = await readHeader(file);
  if (header.length < HEADER_SIZE || !header.subarray(0, MAGIC.length).equals(MAGIC)) {
    if (header[0] === 0x1f && header[1] === 0x8b) {
      throw new BackupAuthError(
        'an unencrypted archive of an older apkrelay carries no authentication',
      );
    }
    throw new BackupAuthError('not an apkrelay backup archive (bad header)');
  }
  // The id picks the key (current or MASTER_KEY_PREVIOUS); a forged id still fails the tags.
  const keyId = header.subarray(MAGIC.length, MAGIC.length + ID_SIZE).toString('hex');
  const backupKey = keys.subkeyOf(keyId, 'backup');
  if (!backupKey) {
    throw new BackupAuthError(
      `sealed under master key ${keyId}, which is not configured (MASTER_KEY is ${keys.id}; ` +
        `MASTER_KEY_PREVIOUS: ${keys.ids.slice(1).join(', ') || 'none'})`,
    );
  }
  const salt = header.subarray(MAGIC.length + ID_SIZE, MAGIC.length + ID_SIZE + SALT_SIZE);
  const prefix = header.subarray(MAGIC.length + ID_SIZE + SALT_SIZE);
  const out = new PassThrough();
  pipeline(
    createReadStream(file, { start: HEADER_SIZE }),
    new SegmentDecryptor(archiveKey(backupKey, salt), prefix),
    createGunzip(),
    out,
  ).catch((err: unknown) => {
    out.destroy(
      err instanceof SegmentAuthError
        ? new BackupAuthError(`segment ${err.segment} does not verify`)
        : (err as Error),
    );
  });
  return out;
}
