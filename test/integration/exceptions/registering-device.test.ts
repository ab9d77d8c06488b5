/**
 * A device that is registering must not lose its reports (the device-sim flake: after a restart
 * all 20 reports were LOST EXCEPTION_INSTALLATION_DISABLED). A new installation's document is
 * written `disabled` first and enabled once its seat is claimed; a request that read it in that
 * window used to leave its `disabled` card in Redis, which the registration's own card then could
 * not replace, so every later report of the device was refused as disabled. Here the window is
 * held open deterministically: the registration's two steps run with the requests in between.
 */
import { createAccountsService } from '../../../shared/accounts/service';
import type { Account } from '../../../shared/accounts/types';
import { installationCard, registerWithCard } from '../../../shared/devices/cards';
import { createKeyRing } from '../../../shared/crypto/keys';
import {
  installationId,
  settleRegistration,
  writeRegistration,
} from '../../../shared/devices/installations';
import { liveState } from '../../../shared/devices/live-state';
import { parseRegistration } from '../../../shared/devices/registration-input';
import { closeRedis, createProducerRedis, redisReady } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { request, type Reply } from '../../helpers/http';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';
import { drained, encodeForm, postForm, seedApp, stackTrace } from './fixtures';

let stack: TestStack;
let redis: ReturnType<typeof createProducerRedis>;
let closeOwnRedis: () => Promise<void>;
beforeAll(async () => {
  stack = await startStack();
  redis = createProducerRedis(stack.redisUrl, 'test:registering-device');
  closeOwnRedis = track('redis registering-device', () => closeRedis(redis));
  await redisReady(redis, 5_000);
});
afterAll(async () => {
  await closeOwnRedis();
  await stack.close();
});

test('reports sent while the registration is being written get 503 + Retry-After, then are taken', async () => {
  const { apiKey, id: accountId } = await newAccount(stack);
  const app = await seedApp(stack, accountId);
  const accounts = createAccountsService(stack.mongo.db, createKeyRing(stack.masterKey));
  const account = (await accounts.authenticateApiKey(apiKey)) as Account;
  const deps = { db: stack.mongo.db, live: liveState(redis, stack.prefix) };
  const scope = { accountId, package: app.package };
  const id = installationId(accountId, app.package, 'newcomer');
  const input = parseRegistration({ package: app.package, deviceId: 'newcomer' });
  const json = (n: number): Promise<Reply> =>
    request(`${stack.urls.web}/api/v2/exceptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      json: {
        package: app.package,
        hash: app.md5,
        deviceId: 'newcomer',
        stack: stackTrace(`${n}`),
      },
      ca: stack.ca,
    });
  const form = () =>
    postForm(
      stack.urls.push,
      stack.ca,
      encodeForm({
        package: app.package,
        api_key: apiKey,
        hash: app.md5,
        deviceId: 'newcomer',
        st: stackTrace('form'),
      }),
    );

  const during: Reply[] = [];
  const registered = await registerWithCard(deps, scope, id, async () => {
    const written = await writeRegistration(deps.db, account, input, new Date());
    expect(written).toMatchObject({ created: true, doc: { status: 'disabled' } });
    // The window: the document exists, disabled, and no seat is claimed yet.
    during.push(await json(1), await form());
    await installationCard(deps, scope, id); // a heartbeat's or a download's read
    return settleRegistration(deps.db, account, written, new Date());
  });
  expect(registered.status).toBe('enabled');

  expect(during[0]!.status).toBe(503);
  expect(during[0]!.headers['retry-after']).toBe('1');
  expect(during[0]!.json()).toMatchObject({
    error: { code: 'EXCEPTION_INSTALLATION_REGISTERING' },
  });
  expect([during[1]!.status, during[1]!.headers['retry-after']]).toEqual([503, '5']);
  expect(during[1]!.text).toBe('Exception not sent: the service is unavailable; retry later.');

  // After the registration: its card, not one read in the window, and the resends are taken.
  expect(await deps.live.card(scope, id.toHexString())).toMatchObject({ status: 'enabled' });
  const resent = await json(1);
  expect([resent.status, resent.json().status]).toEqual([202, 'REGISTERED']);
  expect((await form()).text).toBe('Exception sent.');
  await drained(stack);
  expect(await stack.mongo.db.collection('exceptions').countDocuments({ accountId })).toBe(2);
});

test('a registration that died leaves a placeholder that expires: readers then backfill the card', async () => {
  const { apiKey, id: accountId } = await newAccount(stack);
  const app = await seedApp(stack, accountId);
  const accounts = createAccountsService(stack.mongo.db, createKeyRing(stack.masterKey));
  const account = (await accounts.authenticateApiKey(apiKey)) as Account;
  const live = liveState(redis, stack.prefix);
  const deps = { db: stack.mongo.db, live };
  const scope = { accountId, package: app.package };
  const id = installationId(accountId, app.package, 'phoenix');
  const input = parseRegistration({ package: app.package, deviceId: 'phoenix' });
  const doc = await settleRegistration(
    deps.db,
    account,
    await writeRegistration(deps.db, account, input, new Date()),
    new Date(),
  );
  // A placeholder already expired (its registration crashed after writing the document).
  await live.beginRegistration(scope, id.toHexString(), -1);
  expect(await installationCard(deps, scope, id)).toMatchObject({ status: doc.status });
  expect(await live.card(scope, id.toHexString())).toMatchObject({ status: 'enabled' });
});
