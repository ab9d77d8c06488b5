/**
 * The accounts service authenticates a key by its keyed digest and confirms the stored digest with
 * timingSafeEqual on two 32-byte buffers (real MongoDB; no timing is measured).
 */
import crypto, { randomBytes } from 'node:crypto';
import { createAccountsService } from '../../../shared/accounts/service';
import { createKeyRing } from '../../../shared/crypto/keys';
import { connectMongo, type Mongo } from '../../../shared/storage/mongo';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls } from '../../helpers/services';

let mongo: Mongo;
let close: () => Promise<void>;
beforeAll(async () => {
  mongo = await connectMongo(serviceUrls().mongoUrl, isolation().database);
  close = track('mongo', async () => {
    await mongo.db.dropDatabase().catch(() => undefined);
    await mongo.close();
  });
});
afterAll(() => close());
afterEach(() => jest.restoreAllMocks());

test('a valid key is confirmed with timingSafeEqual over 32-byte digests; others are refused', async () => {
  const accounts = createAccountsService(mongo.db, createKeyRing(randomBytes(32)));
  const { account, apiKey } = await accounts.create({
    email: 'lookup@example.com',
    password: 'password-123',
  });
  const spy = jest.spyOn(crypto, 'timingSafeEqual');
  await expect(accounts.authenticateApiKey(apiKey)).resolves.toMatchObject({ id: account.id });
  expect(spy).toHaveBeenCalledTimes(1);
  const [a, b] = spy.mock.calls[0] as [Buffer, Buffer];
  expect([a.length, b.length]).toEqual([32, 32]);
  const last = apiKey.endsWith('A') ? 'B' : 'A';
  await expect(accounts.authenticateApiKey(`${apiKey.slice(0, -1)}${last}`)).resolves.toBeNull();
  await expect(accounts.authenticateApiKey('not a key')).resolves.toBeNull();
});
