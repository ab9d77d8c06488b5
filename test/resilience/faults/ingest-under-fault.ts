/**
 * The ingest scenario of the dependency-fault tests: uploads go out back to back on eight lanes
 * through the legacy synchronous endpoint (`POST /apps/api_upload`, waits for the verdict) and
 * the asynchronous JSON one (`POST /api/v2/apps/:package/apks`); once some are acknowledged a
 * service is stopped (the rest go out while it is down), kept down, and started again. Then: every acknowledged upload (200 deploy
 * successful, or 202 with a job id) must end `done` with its APK stored exactly once and no
 * orphan blob; every unacknowledged one got a retryable 503 with Retry-After and succeeds when
 * the client resends it. Records the figures under `fault.section`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { postMultipart } from '../../helpers/multipart';
import type { TestStack } from '../../helpers/stack';
import { recordFigures } from '../report';
import {
  auditStorage,
  classify,
  sweepADayLater,
  waitForVerdicts,
  type Outcome,
} from './upload-outcomes';

const BULK = path.resolve(__dirname, '../../fixtures/apks/bulk');
const PACKAGE = 'dev.apkrelay.bulk';

export interface Fault {
  readonly section: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  readonly downMs: number;
}

interface Attempt {
  readonly versionCode: number;
  readonly via: 'legacy-sync' | 'json-async';
  readonly sentAt: number;
  answeredAt: number;
  outcome: Outcome;
}

export async function ingestUnderFault(stack: TestStack, fault: Fault): Promise<void> {
  const { apiKey, id: accountId } = await newAccount(stack);
  const files = await Promise.all(
    Array.from({ length: 50 }, (_, i) => readFile(path.join(BULK, `bulk-${pad(i + 1)}.apk`))),
  );
  const send = async (versionCode: number, via: Attempt['via']): Promise<Outcome> => {
    const data = files[versionCode - 1]!;
    const apk = { name: 'apk', filename: `bulk-${pad(versionCode)}.apk`, data };
    try {
      const reply =
        via === 'legacy-sync'
          ? await postMultipart(
              `${stack.urls.admin}/apps/api_upload`,
              [{ name: 'apiKey', value: apiKey }, apk],
              { ca: stack.ca },
            )
          : await postMultipart(`${stack.urls.admin}/api/v2/apps/${PACKAGE}/apks`, [apk], {
              ca: stack.ca,
              headers: { authorization: `Bearer ${apiKey}` },
            });
      return classify(reply, via);
    } catch (err) {
      return { kind: 'unexpected', detail: (err as Error).message };
    }
  };

  // Uploads go out back to back on eight lanes, around the fault.
  const attempts: Attempt[] = [];
  let next = 1;
  // The first 16 go out before the stop; the others once the service is down, so the fault is
  // felt however fast the first ones complete.
  let stopped = false;
  // Set when the test ends, passed or failed: a lane still waiting for a stop that never came
  // would otherwise loop on and keep jest from exiting.
  let ended = false;
  const lane = async () => {
    while (!ended && next <= files.length) {
      if (next > 16 && !stopped) {
        await sleep(20); // pacing: the lane holds until this test has stopped the service
        continue;
      }
      const versionCode = next++;
      const attempt: Attempt = {
        versionCode,
        via: versionCode % 2 === 0 ? 'json-async' : 'legacy-sync',
        sentAt: Date.now(),
        answeredAt: 0,
        outcome: { kind: 'unexpected', detail: 'not sent' },
      };
      attempts.push(attempt);
      attempt.outcome = await send(versionCode, attempt.via);
      attempt.answeredAt = Date.now();
    }
  };
  const lanes = Promise.all(Array.from({ length: 8 }, lane));
  try {
    // Stop once some uploads are acknowledged, while others are being sent or processed.
    const isAcked = (a: Attempt) => a.outcome.kind.startsWith('acknowledged');
    await eventually('8 acknowledged uploads', () => attempts.filter(isAcked).length >= 8, {
      intervalMs: 20,
    });
    // Acknowledged, not yet decided when the service goes away (counted just before).
    const undecidedAtStop = await stack.mongo.db
      .collection('uploads')
      .countDocuments({ accountId, verdict: null });
    const ackedBeforeStop = attempts.filter(isAcked);
    const stoppedAt = Date.now();
    await fault.stop();
    stopped = true;
    await sleep(fault.downMs); // fault duration
    await fault.start();
    const restartedAt = Date.now();
    const faultsInjected = 1;
    await lanes;

    const unexpected = attempts.filter((a) => a.outcome.kind === 'unexpected');
    expect(unexpected.map((a) => `${a.versionCode}: ${JSON.stringify(a.outcome)}`)).toEqual([]);
    const retryable = attempts.filter((a) => a.outcome.kind === 'retryable');
    // The fault must have been felt, and uploads must have been acknowledged around it.
    expect(retryable.length).toBeGreaterThan(0);
    expect(ackedBeforeStop.length).toBeGreaterThan(0);
    for (const a of retryable) expect(a.outcome).toMatchObject({ retryAfter: '5' });
    // Synchronous uploads sent before the stop and answered after the restart waited across it.
    const across = attempts.filter((a) => a.sentAt < stoppedAt && a.answeredAt > restartedAt);
    console.log(
      `${fault.section}: ${attempts.length} sent, ${ackedBeforeStop.length} acknowledged before the stop, ` +
        `${undecidedAtStop} undecided at the stop, ` +
        `${retryable.length} got 503, ${across.length} answered across the restart ` +
        `(${across.map((a) => `${a.via}:${a.outcome.kind}`).join(', ')})`,
    );

    // Acknowledged before the clients resend anything: these must complete on their own.
    const acked = attempts.filter((a) => a.outcome.kind.startsWith('acknowledged'));
    const jobIds = acked.flatMap((a) =>
      a.outcome.kind === 'acknowledged' ? [a.outcome.upload.uploadId] : [],
    );
    const statuses = await waitForVerdicts(stack.urls.admin, stack.ca, apiKey, jobIds, 90_000);

    // The clients resend what got 503 (Retry-After honoured); every resend is acknowledged now.
    await sleep(5_000);
    const resent = await Promise.all(retryable.map((a) => send(a.versionCode, a.via)));
    expect(resent.filter((o) => !o.kind.startsWith('acknowledged'))).toEqual([]);
    const resentIds = resent.flatMap((o) => (o.kind === 'acknowledged' ? [o.upload.uploadId] : []));
    await waitForVerdicts(stack.urls.admin, stack.ca, apiKey, resentIds, 60_000);

    // Uploads refused with a 503 may have left a blob whose job never landed: swept a day later.
    expect((await sweepADayLater(stack)).removed).toBeLessThanOrEqual(retryable.length);
    const audit = await auditStorage(stack.mongo.db, accountId);
    const apks = await stack.mongo.db
      .collection<{ versionCode: number; uploadId: string }>('apks')
      .find({ accountId })
      .toArray();
    const uploadOf = new Map(apks.map((a) => [a.versionCode, a.uploadId]));
    const lost = acked.filter((a) => {
      const uploadId =
        a.outcome.kind === 'acknowledged' ? a.outcome.upload.uploadId : uploadOf.get(a.versionCode);
      if (!uploadId || !audit.storedOnce.has(uploadId)) return true;
      if (a.outcome.kind === 'acknowledged' && statuses.get(uploadId) !== 'done') return true;
      return uploadOf.get(a.versionCode) !== uploadId;
    });
    // Resends: a 202 names its upload; a 200 (legacy, synchronous) is found by its versionCode.
    const resentLost = retryable.filter((a, i) => {
      const o = resent[i]!;
      const uploadId = o.kind === 'acknowledged' ? o.upload.uploadId : uploadOf.get(a.versionCode);
      return !o.kind.startsWith('acknowledged') || !uploadId || !audit.storedOnce.has(uploadId);
    });
    recordFigures(fault.section, {
      faultsInjected,
      acknowledgedItems:
        acked.length + resent.filter((o) => o.kind.startsWith('acknowledged')).length,
      acknowledgedLost: lost.length + resentLost.length,
    });
    expect(lost.map((a) => `${a.versionCode} ${JSON.stringify(a.outcome)}`)).toEqual([]);
    expect(resentLost.map((a) => a.versionCode)).toEqual([]);
    expect(audit.problems).toEqual([]);
    // Every file ends stored exactly once: the acknowledged ones and the resent ones.
    expect(apks.map((a) => a.versionCode).sort((x, y) => x - y)).toEqual(
      files.map((_, i) => i + 1),
    );
  } finally {
    ended = true;
    await lanes;
  }
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
