/**
 * New installations, throttled (docs/push.md#new-registrations): a device key ships inside the
 * APK, so anyone holding one could register made-up devices without end, each a document and,
 * past the plan, an `installation.over_plan` event. A registration that would create an
 * installation is counted in two sliding windows of one minute in Redis (attempt-windows.ts, as
 * the sign-up and failed-key throttles count): one per presented key (its digest, never the key)
 * and one per app. Past DEVICE_NEW_REGISTRATIONS_PER_KEY or _PER_APP it is refused with how long
 * to wait. A registration of a known installation is not counted (its attempt is withdrawn).
 */
import { createHash } from 'node:crypto';
import { attemptMember, recordAttempt, withdrawAttempt } from '../accounts/attempt-windows';
import type { Redis } from '../storage/redis';

export const NEW_REGISTRATION_WINDOW_MS = 60_000;
export const DEFAULT_REGISTRATION_LIMITS = { perKey: 120, perApp: 600 } as const;

export interface RegistrationLimits {
  /** New installations per presented key per minute. */
  readonly perKey: number;
  /** New installations per app per minute. */
  readonly perApp: number;
}

/** One new registration's admission: wait 0 to go on; `withdraw` if it was not new after all. */
export interface NewAdmission {
  readonly waitMs: number;
  withdraw(): Promise<void>;
}

export interface RegistrationThrottle {
  admit(
    presentedKey: string,
    app: { readonly accountId: string; readonly package: string },
    nowMs: number,
  ): Promise<NewAdmission>;
}

export function redisRegistrationThrottle(
  redis: Redis,
  keys: { readonly newRegistrations: (kind: 'key' | 'app', bucket: string) => string },
  limits: RegistrationLimits = DEFAULT_REGISTRATION_LIMITS,
): RegistrationThrottle {
  return {
    async admit(presentedKey, app, nowMs) {
      const digest = createHash('sha256').update(presentedKey).digest('hex').slice(0, 32);
      // The key first: a flood from one key past its limit does not use up the app's window.
      const windows = [
        [keys.newRegistrations('key', digest), limits.perKey],
        [keys.newRegistrations('app', `${app.accountId}:${app.package}`), limits.perApp],
      ] as const;
      const member = attemptMember(nowMs);
      const waitMs = await recordAttempt(redis, windows, nowMs, NEW_REGISTRATION_WINDOW_MS, member);
      const names = windows.map(([key]) => key);
      return { waitMs, withdraw: () => withdrawAttempt(redis, names, member) };
    },
  };
}
