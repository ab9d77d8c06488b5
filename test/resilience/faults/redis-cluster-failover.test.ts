/**
 * Fault: on a Redis Cluster (3 masters, 3 replicas: test/helpers/redis-cluster.ts) the master
 * holding BullMQ's queues is SIGKILLed while uploads (JSON API, 202 + job) and exception reports
 * (the legacy form) are being sent; the cluster promotes its replica on its own. Promises:
 * every acknowledged upload ends `done`, stored once; every acknowledged report is stored; the
 * 24 h limit stays exact (exactly 10 of 16 distinct reports admitted, 10 stored); whatever was
 * not acknowledged got a retryable 503 and is accepted when resent.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { newAccount } from '../../helpers/accounts';
import { deviceIds, registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { postMultipart } from '../../helpers/multipart';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster';
import { serviceUrls } from '../../helpers/services';
import { startStack, type TestStack } from '../../helpers/stack';
import {
  drained,
  encodeForm,
  postForm,
  seedApp,
  stackTrace,
} from '../../integration/exceptions/fixtures';
import { recordFigures } from '../report';
import {
  auditStorage,
  classify,
  sweepADayLater,
  waitForVerdicts,
  type Outcome,
} from './upload-outcomes';

const BULK = path.resolve(__dirname, '../../fixtures/apks/bulk');
const SENT = 'Exception sent.';
const LIMITED =
  'Exception sent but rejected: The application Failover App has exceeded the 24H sending limit.';

let cluster: RedisCluster;
let stack: TestStack;
beforeAll(async () => {
  cluster = await startRedisCluster();
  stack = await startStack({ redisUrl: cluster.url, mongoUrl: serviceUrls().mongoUrl });
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await cluster?.close();
});

type ReportOutcome = 'sent' | 'limited' | 'retryable' | `unexpected ${string}`;

test('a master SIGKILLed mid-run, its replica promoted: nothing acknowledged is lost, the limit stays exact', async () => {
  const account = await newAccount(stack);
  const app = await seedApp(stack, account.id, { label: 'Failover App' });
  const devices = deviceIds('failover-', 5);
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app };
  expect(await registerDevices(target, devices)).toEqual(Array(5).fill('enabled'));
  const files = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      readFile(path.join(BULK, `bulk-${String(i + 1).padStart(2, '0')}.apk`)),
    ),
  );
  const upload = async (i: number): Promise<Outcome> => {
    const apk = { name: 'apk', filename: `bulk-${i + 1}.apk`, data: files[i]! };
    try {
      const reply = await postMultipart(
        `${stack.urls.admin}/api/v2/apps/dev.apkrelay.bulk/apks`,
        [apk],
        {
          ca: stack.ca,
          headers: { authorization: `Bearer ${account.apiKey}` },
        },
      );
      return classify(reply, 'json-async');
    } catch (err) {
      return { kind: 'unexpected', detail: (err as Error).message };
    }
  };
  const bodies = Array.from({ length: 16 }, (_, i) =>
    encodeForm({
      package: app.package,
      api_key: account.apiKey,
      hash: app.md5,
      deviceId: devices[i % 5]!,
      st: stackTrace(`failover ${i}`, i + 1),
    }),
  );
  const report = async (i: number): Promise<ReportOutcome> => {
    const reply = await postForm(stack.urls.web, stack.ca, bodies[i]!).catch((e: Error) => e);
    if (reply instanceof Error) return `unexpected ${reply.message}`;
    if (reply.status === 503 && reply.headers['retry-after']) return 'retryable';
    if (reply.status === 200 && reply.text === SENT) return 'sent';
    if (reply.status === 200 && reply.text === LIMITED) return 'limited';
    return `unexpected ${reply.status} ${reply.text.slice(0, 200)}`;
  };

  // Uploads on 4 lanes, reports on 2, all through the kill.
  const uploads: Outcome[] = [];
  const reports: ReportOutcome[] = [];
  let nextUpload = 0;
  let nextReport = 0;
  const uploadLane = async () => {
    while (nextUpload < files.length) {
      const i = nextUpload++;
      uploads[i] = await upload(i);
    }
  };
  const reportLane = async () => {
    while (nextReport < bodies.length) {
      const i = nextReport++;
      reports[i] = await report(i);
    }
  };
  const lanes = Promise.all([...Array.from({ length: 4 }, uploadLane), reportLane(), reportLane()]);
  const queueKey = `{${stack.prefix}}:apk-ingest`;
  const killed = await cluster.masterOf(queueKey);
  await eventually(
    '6 acknowledged uploads and 3 reports before the kill',
    () =>
      uploads.filter((o) => o?.kind === 'acknowledged').length >= 6 &&
      reports.filter((o) => o === 'sent').length >= 3,
    { intervalMs: 20 },
  );
  await cluster.kill(killed);
  await lanes;
  // The cluster promoted the killed master's replica: another node serves the queues' slot.
  const promoted = await eventually('a new master for the queues', async () => {
    const port = await cluster.masterOf(queueKey);
    return port !== killed ? port : false;
  });
  expect(promoted).not.toBe(killed);
  await cluster.restart(killed);
  await cluster.waitHealthy();

  // Resend what was refused (retryable); everything is answered for what it is now.
  const retryUploads = uploads.flatMap((o, i) => (o.kind === 'retryable' ? [i] : []));
  for (const i of retryUploads) uploads[i] = await upload(i);
  const retryReports = reports.flatMap((o, i) => (o === 'retryable' ? [i] : []));
  for (const i of retryReports) reports[i] = await report(i);
  console.log(
    `redis-cluster-failover: killed :${killed}, promoted :${promoted}; ` +
      `${retryUploads.length} uploads and ${retryReports.length} reports resent after a 503`,
  );
  expect(uploads.filter((o) => o.kind !== 'acknowledged')).toEqual([]);
  expect(reports.filter((o) => o !== 'sent' && o !== 'limited')).toEqual([]);

  const ids = uploads.flatMap((o) => (o.kind === 'acknowledged' ? [o.upload.uploadId] : []));
  const statuses = await waitForVerdicts(stack.urls.admin, stack.ca, account.apiKey, ids, 120_000);
  // An upload answered 503 while Redis could not say whether its job landed keeps its blob
  // (api/uploads/ingest-client.ts); with no job, housekeeping's sweep fails it once it is stale.
  // Run that sweep as its schedule would a day later: only such uploads may be swept.
  const swept = await sweepADayLater(stack);
  expect(swept.removed).toBeLessThanOrEqual(retryUploads.length);
  const sweptUploads = await stack.mongo.db
    .collection<{ _id: string; status: string }>('uploads')
    .find({ accountId: account.id, 'verdict.code': 'UPLOAD_FAILED' })
    .toArray();
  expect(sweptUploads.filter((u) => ids.includes(u._id))).toEqual([]);
  const audit = await auditStorage(stack.mongo.db, account.id);
  // A 503 is not an acknowledgement: its upload may still have been taken (the reply was lost
  // with the master), and the resend is then rejected as a duplicate of the stored APK. So an
  // acknowledged upload is kept when the APK of its file is stored once by a finished upload.
  const apks = await stack.mongo.db
    .collection<{ versionCode: number; uploadId: string }>('apks')
    .find({ accountId: account.id })
    .toArray();
  const uploadOf = new Map(apks.map((a) => [a.versionCode, a.uploadId]));
  const lostUploads = uploads.flatMap((o, i) => {
    if (o.kind !== 'acknowledged') return [];
    const stored = uploadOf.get(i + 1);
    const decided = ['done', 'failed'].includes(statuses.get(o.upload.uploadId) ?? '');
    return decided && stored && audit.storedOnce.has(stored)
      ? []
      : [`bulk-${i + 1} ${statuses.get(o.upload.uploadId)} ${stored} ${o.upload.uploadId}`];
  });
  await drained(stack);
  const sent = reports.filter((o) => o === 'sent').length;
  const stored = await stack.mongo.db
    .collection('exceptions')
    .countDocuments({ accountId: account.id });
  recordFigures('faults:redis-cluster-failover', {
    faultsInjected: 1,
    acknowledgedItems: ids.length + sent,
    acknowledgedLost: lostUploads.length + Math.max(0, sent - stored),
  });
  expect(lostUploads).toEqual([]);
  expect(audit.problems).toEqual([]);
  // Every file ends stored exactly once.
  expect([...uploadOf.keys()].sort((a, b) => a - b)).toEqual(files.map((_, i) => i + 1));
  // The limit is exact: 10 of the 16 distinct reports admitted, those 10 stored.
  expect({ sent, limited: reports.length - sent, stored }).toEqual({
    sent: 10,
    limited: 6,
    stored: 10,
  });
});
