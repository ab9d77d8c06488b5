/**
 * The world the access matrix runs in: a real stack (API, workers, Redis, FerretDB) and three
 * accounts made through the real API. Account A owns every kind of resource a route can address
 * (an app with a current APK, a registered installation, an exception report with a screenshot, a
 * download link, an upload job, device keys and CI tokens, a webhook endpoint with a delivery,
 * audit entries); B owns an app of another package; the operator (role granted by the accounts
 * service, as `apkrelay account set-role` does) owns one too. A, B and the operator are signed in
 * to the web administration. A housekeeping job that fails is there for the board's retry routes.
 */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { createAccountsService } from '../../../shared/accounts/service';
import { createKeyRing } from '../../../shared/crypto/keys';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { membersOf, signIn, type WebSession } from './world-members';

export { csrfIn, PASSWORD, signIn, type WebSession } from './world-members';
import { keysOf, must, webhookAndAuditOf } from './world-parts';

export const METRICS_TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
/** A tiny JPEG-looking payload: the service stores screenshots as given. */
export const SCREENSHOT = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

export interface Principal {
  readonly id: string;
  readonly email: string;
  readonly apiKey: string;
  readonly session: WebSession;
  /** The package of an app this account owns. */
  readonly package: string;
}

export interface OwnerA extends Principal {
  readonly sha256: string;
  /** A's second APK, in a rollout that targets no device (so every other route is unchanged). */
  readonly rolloutSha256: string;
  readonly md5: string;
  readonly deviceId: string;
  readonly exceptionId: string;
  readonly linkId: string;
  readonly linkToken: string;
  readonly jobId: string;
  /** A's device key (its app), CI token (its app), CI token of another package of A. */
  readonly deviceKey: string;
  readonly ciToken: string;
  readonly ciOther: string;
  /** A device key of A's that `DELETE /api/v2/account/keys/:id` revokes. */
  readonly spareKeyId: string;
  /** A's webhook endpoint, one of its deliveries, and one of its audit entries. */
  readonly webhookId: string;
  readonly deliveryId: string;
  readonly auditId: string;
}

/** A team member of A (issue 20): a web session only, no API key; `package` is A's. */
export interface Member {
  readonly id: string;
  readonly email: string;
  readonly session: WebSession;
  readonly package: string;
}

export interface World {
  readonly stack: TestStack;
  readonly a: OwnerA;
  /** A's admin, developer and viewer; and a developer whose role the matrix posts unchanged. */
  readonly members: {
    readonly admin: Member;
    readonly developer: Member;
    readonly viewer: Member;
    readonly spareId: string;
    /** A pending invitation's join path (`/ui/join/<token>`), never used. */
    readonly joinPath: string;
  };
  readonly b: Principal;
  readonly operator: Principal;
  /** A housekeeping job that failed (its payload names no task). */
  readonly failedJobId: string;
  /** A queue of the stack, read directly (the board's state checks). */
  queue(name: string): Queue;
  close(): Promise<void>;
}

/** Queues of the stack's prefix on one connection, opened on first use. */
function queuesOf(stack: TestStack) {
  const redis = createWorkerRedis(stack.redisUrl, 'test:access-matrix');
  const open = new Map<string, Queue>();
  return {
    queue: (name: string): Queue => {
      let q = open.get(name);
      if (!q) {
        q = new Queue(name, { connection: redis, prefix: stack.prefix });
        open.set(name, q);
      }
      return q;
    },
    close: async (): Promise<void> => {
      await Promise.all([...open.values()].map((q) => q.close()));
      await closeRedis(redis);
    },
  };
}

/** A job the housekeeping worker fails at once, left failed for the board's retry routes. */
async function failingJob(queue: Queue): Promise<string> {
  const job = await queue.add('sweep-orphan-blobs', { task: 'no-such-task' }, { attempts: 1 });
  if (!job.id) throw new Error('the failing job has no id');
  const id = job.id;
  await eventually('the failing job to fail', async () =>
    (await queue.getJob(id))?.failedReason ? true : undefined,
  );
  return id;
}

export async function buildWorld(): Promise<World> {
  // Every role asks every route from one loopback address, many without a key or with a wrong one
  // on purpose: past the product's 100 failures per address the throttle's 429 would hide the
  // access decisions (the throttle has its own tests: auth-throttle.test.ts). Per key: as shipped.
  const stack = await startStack({
    metricsToken: METRICS_TOKEN,
    authFailures: { perAddress: 1000, perKey: 20 },
  });
  const admin = stack.urls.admin;
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  const a = await newAccount(stack);
  await uploadFixture(stack, a.apiKey, 'version-1.apk', { current: true });
  const app = must(
    await request(`${admin}/api/v2/apps`, { headers: bearer(a.apiKey), ca: stack.ca }),
    200,
    'apps of A',
  ).json<{ apps: Array<{ package: string; current: { sha256: string; md5: string } }> }>().apps[0];
  if (!app) throw new Error('A has no app after its upload');
  const pkg = app.package;
  const { sha256, md5 } = app.current;

  const deviceId = `device-a-${randomBytes(4).toString('hex')}`;
  must(
    await request(`${stack.urls.push}/api/v2/installations`, {
      method: 'POST',
      headers: bearer(a.apiKey),
      json: { package: pkg, deviceId, installedMd5: md5 },
      ca: stack.ca,
    }),
    200,
    'registration of A’s device',
  );

  const reported = must(
    await request(`${admin}/api/v2/exceptions`, {
      method: 'POST',
      headers: bearer(a.apiKey),
      json: {
        package: pkg,
        hash: md5,
        deviceId,
        stack: ['java.lang.IllegalStateException: access matrix', '\tat a.B.c(B.java:1)'],
        screen: SCREENSHOT.toString('base64'),
      },
      ca: stack.ca,
    }),
    202,
    'exception of A',
  );
  const exceptionId = reported.json<{ reportId: string }>().reportId;
  await eventually('A’s exception to be stored', async () => {
    const r = await request(`${admin}/api/v2/apps/${pkg}/exceptions/${exceptionId}`, {
      headers: bearer(a.apiKey),
      ca: stack.ca,
    });
    return r.status === 200 ? true : undefined;
  });

  const link = must(
    await request(`${admin}/api/v2/apps/${pkg}/download-links`, {
      method: 'POST',
      headers: bearer(a.apiKey),
      json: { ttlSeconds: 3600 },
      ca: stack.ca,
    }),
    201,
    'download link of A',
  ).json<{ id: string; url: string }>();

  const job = must(
    await postMultipart(
      `${admin}/api/v2/apps/${pkg}/apks`,
      [
        { name: 'current', value: 'false' },
        { name: 'apk', filename: 'version-2.apk', data: await fixture('version-2.apk') },
      ],
      { ca: stack.ca, headers: bearer(a.apiKey) },
    ),
    202,
    'upload job of A',
  ).json<{ jobId: string }>();
  await eventually('A’s upload job to finish', async () => {
    const r = await request(`${admin}/api/v2/uploads/${job.jobId}`, {
      headers: bearer(a.apiKey),
      ca: stack.ca,
    });
    return r.json<{ status: string }>().status === 'done' ? true : undefined;
  });

  const v2 = must(
    await request(`${admin}/api/v2/apps/${pkg}`, { headers: bearer(a.apiKey), ca: stack.ca }),
    200,
    'APKs of A',
  )
    .json<{ apks: Array<{ versionCode: number; sha256: string }> }>()
    .apks.find((apk) => apk.versionCode === 2);
  if (!v2) throw new Error('A has no version 2 after its upload job');
  const webhookId = must(
    await request(`${admin}/api/v2/webhooks`, {
      method: 'POST',
      headers: bearer(a.apiKey),
      json: { url: 'https://hooks.example.invalid/matrix', events: ['rollout.started'] },
      ca: stack.ca,
    }),
    201,
    'webhook of A',
  ).json<{ id: string }>().id;
  must(
    await request(`${admin}/api/v2/apps/${pkg}/rollout`, {
      method: 'POST',
      headers: bearer(a.apiKey),
      json: { sha256: v2.sha256, stages: [10, 100], targeting: { deviceIds: ['nobody'] } },
      ca: stack.ca,
    }),
    201,
    'rollout of A',
  );

  const keys = await keysOf(stack, a.apiKey, pkg);
  const { deliveryId, auditId } = await webhookAndAuditOf(stack, a.apiKey, webhookId);

  const b = await newAccount(stack);
  await uploadFixture(stack, b.apiKey, 'other-package.apk', { current: true });
  const operator = await newAccount(stack);
  await uploadFixture(stack, operator.apiKey, 'other-package.apk', { current: true });
  const accounts = createAccountsService(stack.mongo.db, createKeyRing(stack.masterKey));
  await accounts.setRole(operator.email, 'operator', true);
  const otherPackage = 'dev.apkrelay.other';
  const aSession = await signIn(stack, a.email);
  const members = await membersOf(stack, aSession, pkg);
  const queues = queuesOf(stack);
  const failedJobId = await failingJob(queues.queue('housekeeping'));

  return {
    stack,
    members,
    failedJobId,
    queue: queues.queue,
    close: async () => {
      await queues.close();
      await stack.close();
    },
    a: {
      ...a,
      session: aSession,
      package: pkg,
      sha256,
      rolloutSha256: v2.sha256,
      md5,
      deviceId,
      exceptionId,
      linkId: link.id,
      linkToken: new URL(link.url).pathname.replace(/^\/d\//, ''),
      jobId: job.jobId,
      ...keys,
      webhookId,
      deliveryId,
      auditId,
    },
    b: { ...b, session: await signIn(stack, b.email), package: otherPackage },
    operator: { ...operator, session: await signIn(stack, operator.email), package: otherPackage },
  };
}
