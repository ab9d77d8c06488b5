/**
 * The exception intake shared by the PushLink form and the JSON API: cheap checks, the limit, a
 * job, a verdict. In order: the API key, the app (account + package), the APK by its MD5, the
 * installation (registered and enabled), then the 24 h window (one atomic Redis call). An admitted report is
 * enqueued before the device is told REGISTERED; if that fails the caller answers 503 so the
 * device keeps the report and retries. The slot is given back only when the enqueue surely was
 * not sent; after an ambiguous failure (the job may have landed) it is kept, so the resend is
 * 'resent' under the same job id and at most one job exists.
 */
import type { Queue } from 'bullmq';
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { decide } from '../../shared/accounts/principal';
import type { AccountsService, Authenticated } from '../../shared/accounts/service';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
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
import { surelyNotSent } from '../../shared/storage/redis';
import { TtlCache } from '../../shared/ttl-cache';
import type { CrashCounter } from '../../shared/rollouts/crash-counter';
import { catalogCollections } from '../../shared/catalog/collections';

export interface IntakeDeps {
  readonly db: Db;
  readonly accounts: Pick<AccountsService, 'authenticateKey'>;
  /** Per-process caches of the look-ups; absent: every report asks MongoDB. */
  readonly caches?: IntakeCaches;
  readonly queue: Pick<Queue, 'add'>;
  readonly window: SlidingWindow;
  readonly windowKey: (appId: string) => string;
  /** Unhandled reports per APK for the rollout health gate; absent: not counted. */
  readonly crashes?: CrashCounter;
  readonly installations: InstallationLookup;
  readonly now: () => Date;
  readonly log: Logger;
}

export interface IntakeCaches {
  readonly accounts: TtlCache<Authenticated | null>;
  readonly versions: TtlCache<{ app: AppDoc; apk: ApkDoc | null } | null>;
}

/**
 * Accounts for 5 s, apps and their APKs (found) for 30 s. Installations are not cached here: their
 * status comes from their cards in Redis (shared/devices/cards.ts), so registering,
 * enabling or disabling one takes effect at once.
 */
export function intakeCaches(clock?: () => number): IntakeCaches {
  return {
    accounts: new TtlCache(5_000, 10_000, clock),
    versions: new TtlCache(30_000, 10_000, clock),
  };
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
  const authenticated = apiKey ? await authenticate(deps, apiKey) : null;
  if (!authenticated)
    return lost('EXCEPTION_API_KEY_INVALID', EXCEPTION_TEXT.EXCEPTION_API_KEY_INVALID);
  const { account, principal } = authenticated;
  const decision = decide(principal, { scope: 'device', package: report.package });
  if (!decision.allow) return lost(decision.code, EXCEPTION_TEXT[decision.code]);
  const found = await findVersion(deps, account.id, report.package, report.hash);
  if (!found) return lost('EXCEPTION_PACKAGE_UNKNOWN', EXCEPTION_TEXT.EXCEPTION_PACKAGE_UNKNOWN);
  const { app, apk } = found;
  const appId = app._id.toHexString();
  const limit = exceptionLimit(account.plan.installations);
  const key = deps.windowKey(appId);
  const nowMs = deps.now().getTime();
  const look = async () => budgetOf(await deps.window.admit(key, '', nowMs, limit), limit);

  if (!apk) {
    return lost(
      'EXCEPTION_APK_HASH_UNKNOWN',
      EXCEPTION_TEXT.EXCEPTION_APK_HASH_UNKNOWN,
      await look(),
    );
  }
  const refused = await installationRefusal(deps, account.id, report);
  if (refused) return lost(refused, EXCEPTION_TEXT[refused], await look());

  const digest = reportDigest(report);
  const state = await deps.window.admit(key, digest, nowMs, limit);
  const budget = budgetOf(state, limit);
  if (state.outcome !== 'resent' && !report.handled) await countCrash(deps, appId, apk);
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
    if (state.outcome === 'admitted' && surelyNotSent(err)) {
      await deps.window.release(key, digest, state.admittedAtMs).catch((releaseErr: unknown) => {
        deps.log.warn(
          { appId, err: (releaseErr as Error).message },
          'could not release an exception slot; it frees when it leaves the window',
        );
      });
    }
    if (isDependencyOutage(err)) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', { cause: err });
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

/**
 * Why the installation may not report, or null when it may: reports are taken only from
 * registered installations (a device registers before it reports), and not from disabled ones.
 */
async function installationRefusal(
  deps: IntakeDeps,
  accountId: string,
  report: ExceptionReport,
): Promise<'EXCEPTION_INSTALLATION_DISABLED' | 'EXCEPTION_INSTALLATION_UNKNOWN' | null> {
  const status = await deps.installations.status(accountId, report.package, report.deviceId);
  // Neither taken nor refused: the device keeps the report (QUEUED) and sends it again.
  if (status === 'registering') throw new AppError('EXCEPTION_INSTALLATION_REGISTERING');
  if (status === 'disabled') return 'EXCEPTION_INSTALLATION_DISABLED';
  if (status === 'unknown') return 'EXCEPTION_INSTALLATION_UNKNOWN';
  return null;
}

/**
 * Counts an unhandled report for the health gate, stored or refused by the limit (a resend is not
 * counted twice). A failure to count never loses the report: it is logged.
 */
async function countCrash(deps: IntakeDeps, appId: string, apk: ApkDoc): Promise<void> {
  await deps.crashes?.count(appId, apk._id.toHexString()).catch((err: unknown) => {
    deps.log.warn({ appId, err: (err as Error).message }, 'unhandled exception not counted');
  });
}

function authenticate(deps: IntakeDeps, apiKey: string): Promise<Authenticated | null> {
  const load = () => deps.accounts.authenticateKey(apiKey);
  if (!deps.caches) return load();
  // Keyed by a digest: the cache never holds API keys.
  const key = createHash('sha256').update(apiKey).digest('base64');
  return deps.caches.accounts.get(key, load);
}

/** The app of (account, package) and its APK with this MD5; null when there is no such app. */
function findVersion(deps: IntakeDeps, accountId: string, pkg: string, md5: string) {
  const load = async () => {
    const { apps, apks } = catalogCollections(deps.db);
    const app = await apps.findOne({ accountId, package: pkg });
    if (!app) return null;
    return { app, apk: await apks.findOne({ appId: app._id, md5 }) };
  };
  if (!deps.caches) return load();
  // Only complete answers are kept: a first upload or a new version is seen at once.
  return deps.caches.versions.get(`${accountId}\n${pkg}\n${md5}`, load, (v) => v?.apk != null);
}
