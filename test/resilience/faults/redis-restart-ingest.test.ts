/**
 * Fault: Redis restarts (SIGTERM, down 6 s), or crashes (SIGKILL, down 3 s), while uploads are in
 * flight, through the legacy synchronous endpoint and the asynchronous JSON one (scenario and
 * promises: ingest-under-fault.ts): acknowledged uploads complete once, the others get 503 +
 * Retry-After. And Redis lost (network cut) just as a legacy upload starts waiting for its
 * verdict: the API process lives on and the client gets its verdict.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';
import { recordFigures } from '../report';
import { ingestUnderFault } from './ingest-under-fault';
import { usePrivateStack, type PrivateServices } from './private-services';
import { startTcpProxy } from '../../helpers/tcp-proxy';

let services: PrivateServices;
let stack: TestStack;
usePrivateStack((s, st) => ([services, stack] = [s, st]));

test('Redis restarted during ingest: acknowledged uploads complete once, the others get 503 + Retry-After', () =>
  ingestUnderFault(stack, {
    section: 'faults:redis-restart-ingest',
    stop: () => services.stopRedis(),
    start: () => services.startRedis(),
    downMs: 6_000,
  }));

test('Redis killed (SIGKILL) during ingest: acknowledged uploads complete once, the others get 503 + Retry-After', () =>
  ingestUnderFault(stack, {
    section: 'faults:redis-kill-ingest',
    stop: () => services.killRedis(),
    start: () => services.startRedis(),
    downMs: 3_000,
  }));

test('Redis lost just as a legacy upload starts waiting for its verdict: the API lives on and answers it', async () => {
  // Through a proxy that cuts the network (and refuses reconnections for 1.5 s) at the third
  // command naming the upload's job, right after its enqueue; at the latest 300 ms after it.
  const proxy = await startTcpProxy(Number(new URL(services.redisUrl).port));
  const waiting = await startStack({
    redisUrl: `redis://127.0.0.1:${proxy.port}`,
    mongoUrl: services.mongoUrl,
    workers: false,
  });
  try {
    const { apiKey, id: accountId } = await newAccount(waiting);
    let naming = 0;
    proxy.cutWhen(
      (chunk) => /upload-[A-Za-z0-9_-]{22}/.test(chunk.toString('latin1')) && ++naming === 3,
      1_500,
    );
    const reply = postMultipart(
      `${waiting.urls.admin}/apps/api_upload`,
      [
        { name: 'apiKey', value: apiKey },
        { name: 'apk', filename: 'version-2.apk', data: await fixture('version-2.apk') },
      ],
      { ca: waiting.ca },
    );
    const uploads = waiting.mongo.db.collection('uploads');
    await eventually(
      'the upload document',
      async () => (await uploads.countDocuments({ accountId })) > 0,
      { intervalMs: 20 },
    );
    await sleep(300); // fault timing: the cut comes at the latest 300 ms after the enqueue
    if (proxy.cuts === 0) proxy.cutNow(1_500);
    await sleep(2_000); // fault timing: the API is on its own for 2 s before workers come
    await waiting.startWorkers();
    const answer = await reply;
    const stored = await uploads.findOne({ accountId });
    recordFigures('faults:redis-drop-verdict-wait', {
      faultsInjected: proxy.cuts,
      acknowledgedItems: 1,
      acknowledgedLost: stored?.status === 'done' ? 0 : 1,
    });
    expect(proxy.cuts).toBe(1);
    expect({ status: answer.status, text: answer.text }).toEqual({
      status: 200,
      text: 'deploy successful',
    });
    expect(stored?.status).toBe('done');
  } finally {
    await waiting.close();
    await proxy.close();
  }
});
