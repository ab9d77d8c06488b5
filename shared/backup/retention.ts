/**
 * The archives in a backup directory, and retention: archives older than `keepDays` days (counted
 * with luxon in the backup time zone, so a day is a calendar day across DST changes) are deleted
 * with their `.sha256` sidecars. Only files named like archives are ever touched.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DateTime } from 'luxon';
import { archiveTime, sidecarName } from './manifest';

export interface ArchiveInfo {
  readonly name: string;
  readonly path: string;
  readonly at: Date;
  readonly bytes: number;
}

/** Archives in `dir`, oldest first; none when the directory does not exist yet. */
export async function listBackups(dir: string): Promise<ArchiveInfo[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const out: ArchiveInfo[] = [];
  for (const name of names) {
    const at = archiveTime(name);
    if (!at) continue;
    const full = path.join(dir, name);
    out.push({ name, path: full, at, bytes: (await stat(full)).size });
  }
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

export function retentionCutoff(now: Date, keepDays: number, zone: string): Date {
  return DateTime.fromJSDate(now, { zone }).minus({ days: keepDays }).toJSDate();
}

/** Deletes archives older than the cutoff; returns the names deleted. */
export async function pruneBackups(
  dir: string,
  now: Date,
  keepDays: number,
  zone: string,
): Promise<string[]> {
  const cutoff = retentionCutoff(now, keepDays, zone).getTime();
  const removed: string[] = [];
  for (const archive of await listBackups(dir)) {
    if (archive.at.getTime() >= cutoff) continue;
    await rm(archive.path, { force: true });
    await rm(sidecarName(archive.path), { force: true });
    removed.push(archive.name);
  }
  return removed;
}
