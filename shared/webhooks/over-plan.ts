import type { OverPlanHook } from '../devices/store';
import { coerceError } from '../errors';
import type { Logger } from '../log';
import { emitEvent, type EmitDeps } from './deliveries';

/**
 * `installation.over_plan`: a new installation registered past the account's plan (it is kept
 * disabled). Once per installation (the key). A failure to queue it is logged, never fails the
 * device's registration.
 */
export function overPlanEvents(events: EmitDeps, log: Logger): OverPlanHook {
  return async (account, doc) => {
    const data = {
      package: doc.package,
      deviceId: doc.deviceId,
      planInstallations: account.plan.installations,
    };
    const key = `over-plan:${doc._id.toHexString()}`;
    await emitEvent(events, [account.id], 'installation.over_plan', data, key).catch(
      (err: unknown) => log.warn({ err: coerceError(err) }, 'installation.over_plan not queued'),
    );
  };
}
