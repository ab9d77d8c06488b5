/**
 * The exception intake shared by the PushLink form and the JSON API: cheap checks, the limit, a
 * job, a verdict. In order: the API key, the app (account + package), the APK by its MD5, the
 * installation's status, then the 24 h window (one atomic Redis call). An admitted report is
 * enqueued before the device is told REGISTERED; if that fails, its slot is given back and the
 * caller answers 503 so the device keeps the report and retries.
 */
import type { Queue } from 'bullmq';
import type { Db } from 'mongodb';
import type { AccountsService } from '../../shared/accounts/service';
import { catalog } from '../../shared/catalog/collections';
import { AppError } from '../../shared/errors';
import type { InstallationLookup } from '../../shared/exceptions/installations';
import { reportDigest, type ExceptionReport } from '../../shared/exceptions/report';
import { budgetOf, type SlidingWindow } from '../../shared/exceptions/sliding-window';
import { EXCEPTION_TEXT, limitText, lost, type Verdict } from '../../shared/exceptions/verdicts';
import type { Logger } from '../../shared/log';
import {
  exceptionIngestQueue,
  type ExceptionIngestPayload,
} from '../../shared/queues/exception-ingest';
import { isDependencyOutage } from '../http-errors';

export interface IntakeDeps {
  readonly db: Db;
  readonly accounts: Pick<AccountsService, 'authenticateApiKey'>;
  readonly queue: Pick<Queue, 'add'>;
  readonly window: SlidingWindow;
  readonly windowKey: (appId: string) => string;
  readonly installations: InstallationLookup;
  readonly now: () => Date;
  readonly log: Logger;
}

/** Reports per app per window: the plan's installations × 2 (spec §8). */
export function exceptionLimit(planInstallations: number): number {
  return planInstallations * 2;
}

export async function takeReport(
  deps: IntakeDeps,
  apiKey: string | undefined,
  report: ExceptionReport,
): Promise<Verdict> {
  const account = apiKey ? await deps.accounts.authenticateApiKey(apiKey) : null;
  if (!account) return lost('EXCEPTION_API_KEY_INVALID', EXCEPTION_TEXT.EXCEPTION_API_KEY_INVALID);
  const { apps, apks } = catalog(deps.db);
  const app = await apps.findOne({ accountId: account.id, package: report.package });
  if (!app) return lost('EXCEPTION_PACKAGE_UNKNOWN', EXCEPTION_TEXT.EXCEPTION_PACKAGE_UNKNOWN);
  const appId = app._id.toHexString();
  const limit = exceptionLimit(account.plan.installations);
  const key = deps.windowKey(appId);
  const nowMs = deps.now().getTime();
  const look = async () => budgetOf(await deps.window.admit(key, '', nowMs, limit), limit);

  const apk = await apks.findOne({ appId: app._id, md5: report.hash });
  if (!apk) {
    return lost(
      'EXCEPTION_APK_HASH_UNKNOWN',
      EXCEPTION_TEXT.EXCEPTION_APK_HASH_UNKNOWN,
      await look(),
    );
  }
  const status = await deps.installations.status(account.id, report.package, report.deviceId);
  if (status === 'disabled') {
    return lost(
      'EXCEPTION_INSTALLATION_DISABLED',
      EXCEPTION_TEXT.EXCEPTION_INSTALLATION_DISABLED,
      await look(),
    );
  }

  const digest = reportDigest(report);
  const state = await deps.window.admit(key, digest, nowMs, limit);
  const budget = budgetOf(state, limit);
  if (state.outcome === 'refused' || state.admittedAtMs === null) {
    const appName = apk.label ?? app.label ?? app.package;
    return lost('EXCEPTION_LIMIT_REACHED', limitText(appName), budget);
  }
  const reportId = `${digest.slice(0, 32)}-${state.admittedAtMs}`;
  const payload: ExceptionIngestPayload = {
    reportId,
    accountId: account.id,
    appId,
    apkId: apk._id.toHexString(),
    version: `${apk.versionName ?? '?'} (${apk.versionCode})`,
    admittedAt: state.admittedAtMs,
    report,
  };
  try {
    // A resend is enqueued again under the same job id: a no-op if the first job is still
    // there, and a harmless idempotent re-run if it finished (or never got in).
    await deps.queue.add('report', payload, {
      ...exceptionIngestQueue.jobOptions,
      jobId: exceptionIngestQueue.jobId!(payload),
    });
  } catch (err) {
    if (state.outcome === 'admitted') {
      await deps.window.release(key, digest, state.admittedAtMs).catch((releaseErr: unknown) => {
        deps.log.warn(
          { appId, err: (releaseErr as Error).message },
          'could not release an exception slot; it frees when it leaves the window',
        );
      });
    }
    if (isDependencyOutage(err)) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', undefined, undefined, { cause: err });
    }
    throw err;
  }
  return {
    status: 'REGISTERED',
    reason: null,
    message: EXCEPTION_TEXT.REGISTERED,
    reportId,
    resent: state.outcome === 'resent',
    budget,
  };
}
