import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { archiveName, archiveTime } from '../../../../shared/backup/manifest';
import { pruneBackups, retentionCutoff } from '../../../../shared/backup/retention';
import { scheduledInstant } from '../../../../shared/queues/backup';

test('archive names carry the UTC instant to the millisecond and parse back', () => {
  const at = new Date('2026-11-21T02:30:00.000Z');
  expect(archiveName(at)).toBe('apkrelay-20261121T023000000Z.tar.gz');
  expect(archiveTime(archiveName(at))).toEqual(at);
  expect(archiveTime('apkrelay-20261121T023000000Z.tar.gz.sha256')).toBeNull();
  expect(archiveTime('notes.txt')).toBeNull();
});

test('scheduler job ids give the scheduled instant; other ids none', () => {
  expect(scheduledInstant('repeat:nightly-backup:1795141800000')).toEqual(new Date(1795141800000));
  expect(scheduledInstant('42')).toBeNull();
});

test('retention counts calendar days in the backup time zone (DST included)', () => {
  // 30 March 2026 12:00 in Lisbon (UTC+1) minus 2 days is 28 March 12:00 (UTC+0): 47 h earlier.
  const now = new Date('2026-03-30T11:00:00Z');
  expect(retentionCutoff(now, 2, 'Europe/Lisbon').toISOString()).toBe('2026-03-28T12:00:00.000Z');
  expect(retentionCutoff(now, 2, 'UTC').toISOString()).toBe('2026-03-28T11:00:00.000Z');
});

test('pruning deletes old archives and their sidecars, nothing else', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-prune-'));
  try {
    const now = new Date('2026-11-21T02:30:00Z');
    const old = archiveName(new Date('2026-11-01T02:30:00Z'));
    const kept = archiveName(new Date('2026-11-10T02:30:00Z'));
    for (const n of [old, `${old}.sha256`, kept, `${kept}.sha256`, 'other.tar.gz']) {
      await writeFile(path.join(dir, n), '');
    }
    expect(await pruneBackups(dir, now, 14, 'UTC')).toEqual([old]);
    expect((await readdir(dir)).sort()).toEqual([kept, `${kept}.sha256`, 'other.tar.gz'].sort());
    expect(await pruneBackups(path.join(dir, 'missing'), now, 14, 'UTC')).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
