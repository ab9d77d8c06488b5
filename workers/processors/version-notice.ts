/**
 * Processor of `version-notice`: appends the notice to the app's Redis stream and publishes it to
 * every API process. Idempotent: the append is skipped when the stream already holds a notice of
 * this version or newer (appendNotice's Lua script). A notice naming an app of another account
 * than its own is refused before the append (job-ownership.ts).
 */
import type { Redis } from '../../shared/storage/redis';
import type { Db } from 'mongodb';
import { appendNotice } from '../../shared/notices/append-notice';
import type { VersionNoticePayload } from '../../shared/queues/version-notice';
import type { Processor } from '../processor';
import { appOfAccount } from '../job-ownership';

export function versionNoticeProcessor(deps: {
  readonly db: Db;
  readonly redis: Redis;
  readonly prefix: string;
}): Processor<VersionNoticePayload, { streamId: string }> {
  return async (notice) => {
    await appOfAccount(deps.db, notice.accountId, notice.appId, notice.package);
    return { streamId: await appendNotice(deps.redis, deps.prefix, notice) };
  };
}
