/**
 * Fault: MongoDB stops (SIGTERM) for 60 s while uploads are in flight, through the legacy
 * synchronous endpoint and the asynchronous JSON one (scenario and promises: ingest-under-fault.ts):
 * acknowledged uploads complete once, the others get 503 + Retry-After. And a legacy upload whose
 * client is waiting for the verdict when Mongo goes away gets the verdict, not a 503 that would
 * make it send again what is stored anyway.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { apkIngestQueue } from '../../../shared/queues/apk-ingest';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import { recordFigures } from '../report';
import { ingestUnderFault } from './ingest-under-fault';
import { usePrivateStack, type PrivateServices } from './private-services';

let services: PrivateServices;
let stack: TestStack;
usePrivateStack((s, st) => ([services, stack] = [s, st]));

test('Mongo stopped for 60 s during ingest: acknowledged uploads complete once, the others get 503 + Retry-After', () =>
  ingestUnderFault(stack, {
    section: 'faults:mongo-stop-ingest',
    stop: () => services.stopMongo(),
    start: () => services.startMongo(),
    downMs: 60_000,
  }));

/** Whether the API's ingest job waits in the queue (no workers run yet). */
async function ingestJobWaiting(prefix: string): Promise<boolean> {
  const redis = createWorkerRedis(services.redisUrl, 'test:ingest-probe');
  const queue = new Queue(apkIngestQueue.name, { connection: redis, prefix });
  try {
    return ((await queue.getJobCounts('waiting')).waiting ?? 0) > 0;
  } finally {
    await queue.close();
    await closeRedis(redis);
  }
}

test('a legacy upload waiting for its verdict across a Mongo outage gets the verdict, not a 503', async () => {
  // No workers yet: the job stays queued while the API waits for the verdict.
  const waiting = await startStack({
    redisUrl: services.redisUrl,
    mongoUrl: services.mongoUrl,
    workers: false,
  });
  try {
    const { apiKey, id: accountId } = await newAccount(waiting);
    const reply = postMultipart(
      `${waiting.urls.admin}/apps/api_upload`,
      [
        { name: 'apiKey', value: apiKey },
        { name: 'apk', filename: 'version-1.apk', data: await fixture('version-1.apk') },
      ],
      { ca: waiting.ca },
    );
    const uploads = waiting.mongo.db.collection('uploads');
    await eventually(
      'the upload document',
      async () => (await uploads.countDocuments({ accountId })) > 0,
    );
    // Enqueued (the upload document is written just before its job): the API waits for it now.
    await eventually("the upload's ingest job", () => ingestJobWaiting(waiting.prefix));
    await services.stopMongo();
    await sleep(8_000); // more than the driver's 5 s server selection: polls fail meanwhile
    await services.startMongo();
    await waiting.startWorkers();
    const answer = await reply;
    const stored = await uploads.findOne({ accountId });
    recordFigures('faults:mongo-stop-verdict-wait', {
      faultsInjected: 1,
      acknowledgedItems: 1,
      acknowledgedLost: stored?.status === 'done' ? 0 : 1,
    });
    expect({ status: answer.status, text: answer.text }).toEqual({
      status: 200,
      text: 'deploy successful',
    });
    expect(stored?.status).toBe('done');
  } finally {
    await waiting.close();
  }
});
