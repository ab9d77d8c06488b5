/**
 * Resolves the master key: `MASTER_KEY` when set, otherwise a random key generated once into
 * `DATA_DIR/master.key` (mode 0600) and reused. The generated key is for development: losing it
 * loses every stored APK, so production must set MASTER_KEY and back it up apart from the data.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log';
import { AppError } from '../errors';

export async function resolveMasterKey(
  configured: Buffer | undefined,
  dataDir: string,
  log: Logger,
): Promise<Buffer> {
  if (configured) return configured;
  const file = path.join(dataDir, 'master.key');
  try {
    const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    if (key.length !== 32) {
      throw new AppError('CONFIG_INVALID', {
        message: `${file} does not hold a 32-byte base64 key`,
      });
    }
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    await writeFile(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process generated it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      return resolveMasterKey(undefined, dataDir, log);
    }
    throw err;
  }
  log.warn(
    { file },
    '!!! MASTER_KEY is not set: generated a random master key into %s. ' +
      'Production MUST set MASTER_KEY (base64, 32 bytes) and back it up separately: ' +
      'without it no stored APK can be decrypted. !!!',
    file,
  );
  return key;
}
