/**
 * Appends a version notice to an app's stream unless the stream already holds one at least as
 * new (a retried job), in one atomic Lua call, then publishes it. Returns the stream entry id.
 */
import type { Redis } from '../storage/redis';
import { redisKeys } from '../redis-keys';

/**
 * KEYS[1]  the app's notice stream
 * ARGV[1]  the notice's version (app.currentVersion after the change)
 * ARGV[2]  the notice as JSON
 * ARGV[3]  approximate maximum stream length
 * Returns  { entryId, added (1) or already present (0) }
 */
const APPEND_NOTICE_LUA = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'v' and tonumber(fields[i + 1]) >= tonumber(ARGV[1]) then
      return { last[1][1], 0 }
    end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'v', ARGV[1], 'n', ARGV[2])
return { id, 1 }
`;

export interface Notice {
  readonly accountId: string;
  readonly appId: string;
  readonly package: string;
  readonly apkId: string | null;
  readonly currentVersion: number;
}

export const NOTICE_STREAM_MAXLEN = 1000;

export async function appendNotice(redis: Redis, prefix: string, notice: Notice): Promise<string> {
  const keys = redisKeys(prefix);
  const [entryId, added] = (await redis.eval(
    APPEND_NOTICE_LUA,
    1,
    keys.noticeStream(notice.appId),
    String(notice.currentVersion),
    JSON.stringify(notice),
    String(NOTICE_STREAM_MAXLEN),
  )) as [string, number];
  if (added === 1) {
    await redis.publish(keys.noticeChannel(), JSON.stringify({ ...notice, entryId }));
  }
  return entryId;
}

/** The id of an app's latest notice, `0-0` when it has none (the SSE streams' event ids). */
export async function latestNoticeId(redis: Redis, prefix: string, appId: string): Promise<string> {
  const last = await redis.xrevrange(redisKeys(prefix).noticeStream(appId), '+', '-', 'COUNT', 1);
  return last[0]?.[0] ?? '0-0';
}
