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
import type { JobContext, Processor } from '../processor';
import { coerceError } from '../../shared/errors';
import { emitEvent, type EmitDeps } from '../../shared/webhooks/deliveries';
import { accountsCollections } from '../../shared/accounts/collections';

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
  /** Where `backup.failed` goes (operator accounts' endpoints); unset: nowhere. */
  readonly events?: EmitDeps;
}

/** `backup.failed` to the endpoints of every operator account, once the job gives up. */
async function announceFailure(deps: BackupDeps, ctx: JobContext, err: unknown): Promise<void> {
  if (!deps.events || (ctx.attempt < ctx.maxAttempts && !(err instanceof UnrecoverableError))) {
    return;
  }
  const operators = await accountsCollections(deps.db)
    .accounts.find({ roles: 'operator' }, { projection: { _id: 1 } })
    .toArray();
  const ids = operators.map((a) => a._id.toHexString());
  const data = { jobId: ctx.jobId, error: coerceError(err).message.slice(0, 500) };
  await emitEvent(deps.events, ids, 'backup.failed', data, `backup:${ctx.jobId}`);
}

export function backupProcessor(deps: BackupDeps): Processor<BackupPayload, BackupJobResult> {
  const run = writeBackup(deps);
  return async (payload, ctx) => {
    try {
      return await run(payload, ctx);
    } catch (err) {
      await announceFailure(deps, ctx, err).catch((e: unknown) =>
        ctx.log.error({ err: coerceError(e) }, 'backup.failed event not emitted'),
      );
      throw err;
    }
  };
}

function writeBackup(deps: BackupDeps): Processor<BackupPayload, BackupJobResult> {
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
