/**
 * Processor of `backup`: writes one archive of the database, applies retention, records the run
 * for the backup-age metric. Idempotent: the archive is named after the scheduled instant, so a
 * retried job replaces its own archive (written under a temporary name, renamed when complete);
 * retention deletes by age only.
 */
import { UnrecoverableError } from 'bullmq';
import type { Redis } from '../../shared/storage/redis';
import type { Db } from 'mongodb';
import type { KeyRing } from '../../shared/crypto/keys';
import { createBackup } from '../../shared/backup/create-backup';
import { recordLastBackup } from '../../shared/backup/last-backup';
import { pruneBackups } from '../../shared/backup/retention';
import {
  scheduledInstant,
  type BackupJobResult,
  type BackupPayload,
} from '../../shared/queues/backup';
import type { Processor } from '../processor';

export interface BackupSettings {
  readonly dir: string;
  readonly keepDays: number;
  /** Time zone of the schedule; retention counts calendar days in it. */
  readonly tz: string;
}

export interface BackupDeps {
  readonly db: Db;
  readonly redis: Redis;
  readonly prefix: string;
  readonly keys: KeyRing;
  readonly now: () => Date;
  /** Unset: this worker has no backup settings and refuses backup jobs. */
  readonly backup?: BackupSettings;
}

export function backupProcessor(deps: BackupDeps): Processor<BackupPayload, BackupJobResult> {
  return async (_payload, ctx) => {
    const settings = deps.backup;
    if (!settings) throw new UnrecoverableError('this worker has no backup settings');
    const at = scheduledInstant(ctx.jobId) ?? deps.now();
    const summary = await createBackup({
      db: deps.db,
      dir: settings.dir,
      at,
      log: ctx.log,
      keys: deps.keys,
      signal: ctx.signal,
    });
    const removed = await pruneBackups(settings.dir, deps.now(), settings.keepDays, settings.tz);
    await recordLastBackup(deps.redis, deps.prefix, {
      at: deps.now().getTime(),
      path: summary.path,
      bytes: summary.bytes,
      sha256: summary.sha256,
    });
    ctx.log.info(
      {
        path: summary.path,
        bytes: summary.bytes,
        sha256: summary.sha256,
        files: summary.files,
        removed,
      },
      'backup written',
    );
    return { ...summary, removed };
  };
}
