/**
 * `installation.over_plan`: new installations registered past the account's plan (each is kept
 * disabled). Coalesced (docs/webhooks.md#installationover_plan): at most one event per app per
 * window (WEBHOOK_OVER_PLAN_WINDOW_SECONDS, windows aligned on the clock), sent at the window's
 * first over-plan registration; its `count` says how many registrations went over the plan since
 * the app's previous event (this one included), so those held back in a window are told by the
 * next event. A leaked device key registering made-up devices therefore queues one delivery per
 * endpoint per window, not one per device. A failure to queue it is logged, never fails the
 * device's registration.
 */
import type { OverPlanHook } from '../devices/store';
import { coerceError } from '../errors';
import type { Logger } from '../log';
import type { RedisKeys } from '../redis-keys';
import type { Redis } from '../storage/redis';
import { emitEvent, type EmitDeps } from './deliveries';

export const DEFAULT_OVER_PLAN_WINDOW_MS = 60 * 60 * 1000;

/**
 * KEYS[1]  the app's count of over-plan registrations not yet told
 * KEYS[2]  the marker of the current window (set once its event is due)
 * ARGV[1]  the marker's lifetime (ms)
 * Returns  the count to tell now (the marker was unset), or 0 (this window's event went out)
 */
const COUNT_LUA = `
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], 30 * 86400000)
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', tonumber(ARGV[1])) then
  redis.call('DEL', KEYS[1])
  return n
end
return 0
`;

export interface OverPlanCoalescing {
  readonly redis: Redis;
  readonly keys: Pick<RedisKeys, 'overPlanCount' | 'overPlanWindow'>;
  readonly windowMs: number;
}

export function overPlanEvents(
  events: EmitDeps,
  log: Logger,
  coalescing: OverPlanCoalescing,
): OverPlanHook {
  const { redis, keys, windowMs } = coalescing;
  return async (account, doc) => {
    try {
      const window = Math.floor(events.now().getTime() / windowMs);
      const [countKey, windowKey] = [
        keys.overPlanCount(account.id, doc.package),
        keys.overPlanWindow(account.id, doc.package, window),
      ];
      const count = Number(await redis.eval(COUNT_LUA, 2, countKey, windowKey, 2 * windowMs));
      if (count === 0) return;
      const data = {
        package: doc.package,
        deviceId: doc.deviceId,
        planInstallations: account.plan.installations,
        count,
        windowStart: new Date(window * windowMs).toISOString(),
        windowSeconds: windowMs / 1000,
      };
      const key = `over-plan:${account.id}:${doc.package}:${window}`;
      await emitEvent(events, [account.id], 'installation.over_plan', data, key);
    } catch (err) {
      log.warn({ err: coerceError(err) }, 'installation.over_plan not queued');
    }
  };
}
