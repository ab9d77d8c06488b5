/**
 * Processor of `version-notice`: appends the notice to the app's Redis stream and publishes it to
 * every API process. Idempotent: the append is skipped when the stream already holds a notice of
 * this version or newer (appendNotice's Lua script).
 */
import type { Redis } from 'ioredis';
import { appendNotice } from '../../shared/notices/append-notice';
import type { VersionNoticePayload } from '../../shared/queues/version-notice';
import type { Processor } from '../processor';

export function versionNoticeProcessor(deps: {
  readonly redis: Redis;
  readonly prefix: string;
}): Processor<VersionNoticePayload, { streamId: string }> {
  return async (notice) => ({ streamId: await appendNotice(deps.redis, deps.prefix, notice) });
}
