/**
 * DATA_DIR holds the master key, the stores (SQLite files, Redis AOF with job payloads), staging,
 * caches, backups and the services' passwords: only its owner may read it. Every process that
 * touches it first sets the umask to 077, so what it and the services it spawns (which inherit the
 * umask) create is 0700/0600, and closes up whatever an older version or a looser umask left.
 *
 * One exception: when the embedded PostgreSQL runs as its own system user (we are root, see
 * postgresql.ts), DATA_DIR itself is 0710 with that user's group, so it can reach its cluster in
 * `DATA_DIR/postgresql` (search only: no listing, no other entry readable). Kept only while that
 * directory belongs to another user whose group DATA_DIR has.
 */
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

export const PRIVATE_UMASK = 0o077;

/** Sets this process's umask (inherited by its children) and restricts DATA_DIR recursively. */
export async function restrictDataDir(dataDir: string): Promise<void> {
  process.umask(PRIVATE_UMASK);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await restrict(dataDir, await topMode(dataDir));
}

/** 0710 for a DATA_DIR whose group is that of the other user owning `postgresql/`, else 0700. */
async function topMode(dataDir: string): Promise<number> {
  const top = await lstat(dataDir);
  const cluster = await lstat(path.join(dataDir, 'postgresql')).catch(() => undefined);
  const foreign = cluster?.isDirectory() && cluster.uid !== top.uid && cluster.gid === top.gid;
  return foreign ? 0o710 : 0o700;
}

async function restrict(entry: string, dirMode = 0o700): Promise<void> {
  let stat;
  try {
    stat = await lstat(entry);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // removed meanwhile
    throw err;
  }
  // Symbolic links are left alone: their own mode means nothing and the target may be shared.
  if (stat.isSymbolicLink()) return;
  const mode = stat.mode & 0o777;
  if (stat.isDirectory()) {
    if (mode !== dirMode) await chmodIfThere(entry, dirMode);
    for (const name of await readdir(entry).catch(() => [])) {
      await restrict(path.join(entry, name));
    }
  } else if ((mode & 0o077) !== 0) {
    await chmodIfThere(entry, mode & 0o700);
  }
}

async function chmodIfThere(file: string, mode: number): Promise<void> {
  try {
    await chmod(file, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
