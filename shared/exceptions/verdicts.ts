/**
 * What a device is told about a report: REGISTERED, or LOST with a reason. The legacy texts are
 * PushLink's, word for word (the device library logs them); the codes are the catalogue's
 * (`shared/errors.ts`), which the JSON API returns with their HTTP statuses.
 */
import type { ErrorCode } from '../errors';
import type { Budget } from './sliding-window';

export type LostReason = Extract<
  ErrorCode,
  | 'EXCEPTION_API_KEY_INVALID'
  | 'EXCEPTION_PACKAGE_UNKNOWN'
  | 'EXCEPTION_APK_HASH_UNKNOWN'
  | 'EXCEPTION_INSTALLATION_DISABLED'
  | 'EXCEPTION_INSTALLATION_UNKNOWN'
  | 'EXCEPTION_LIMIT_REACHED'
  | 'EXCEPTION_REPORT_INVALID'
  | 'KEY_SCOPE_REFUSED'
  | 'KEY_APP_REFUSED'
>;

export type Verdict =
  | {
      readonly status: 'REGISTERED';
      readonly reason: null;
      readonly message: string;
      /** The stored report's id (a resend gets the first one's). */
      readonly reportId: string;
      readonly resent: boolean;
      readonly budget: Budget;
    }
  | {
      readonly status: 'LOST';
      readonly reason: LostReason;
      readonly message: string;
      /** Null when the app is not known (wrong key or package, malformed report). */
      readonly budget: Budget | null;
    };

export const EXCEPTION_TEXT = {
  REGISTERED: 'Exception sent.',
  EXCEPTION_API_KEY_INVALID:
    'Exception sent but rejected: Invalid API Key. Probably caused by the wrong configuration.',
  EXCEPTION_PACKAGE_UNKNOWN:
    'Exception sent but rejected: Invalid Package. You probably never uploaded this app.',
  EXCEPTION_APK_HASH_UNKNOWN:
    'Exception sent but rejected: Invalid APK Hash. Probably you are in a development environment. You did not upload this version yet.',
  EXCEPTION_INSTALLATION_DISABLED:
    'Exception sent but rejected: Installation disabled. This device is beyond the installations of your plan.',
  // Not a PushLink text (PushLink's server registers devices on their push channel before they
  // report): apkrelay's, in the same style.
  EXCEPTION_INSTALLATION_UNKNOWN:
    'Exception sent but rejected: Installation not registered. This device never registered with the service for this app.',
  // apkrelay's: a valid key that may not report for this app (docs/keys.md).
  KEY_SCOPE_REFUSED:
    'Exception sent but rejected: this key may not report exceptions (a CI token, or not a device key).',
  KEY_APP_REFUSED: 'Exception sent but rejected: this device key is not valid for this app.',
} as const;

export function limitText(appName: string): string {
  return `Exception sent but rejected: The application ${appName} has exceeded the 24H sending limit.`;
}

export function invalidReportText(detail: string): string {
  return `Exception sent but rejected: Invalid report. ${detail}.`;
}

export function lost(reason: LostReason, message: string, budget: Budget | null = null): Verdict {
  return { status: 'LOST', reason, message, budget };
}
