/**
 * LEGACY_PUSH_TLS_MIN: an operator admits TLS 1.0 on the legacy push listener for Android < 5
 * devices, and such a device is served (its default, TLS 1.2+, refusing it, is in
 * legacy-push.test.ts).
 */
import type { TLSSocket } from 'node:tls';
import { PushlinkReplay } from '../../../device-client/node/pushlink-replay';
import { newAccount } from '../../helpers/accounts';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(120_000);
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ legacyPush: { tlsMin: 'TLSv1' } });
});
afterAll(() => stack.close());

test('a TLS 1.0 device subscribes and is told the current APK', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const s = await PushlinkReplay.connect({
    host: '127.0.0.1',
    port: stack.legacyPushPort!,
    ca: stack.ca,
    minVersion: 'TLSv1',
    maxVersion: 'TLSv1',
  });
  try {
    expect((s.socket as TLSSocket).getProtocol()).toBe('TLSv1');
    s.subscribe({
      apiKey,
      package: 'dev.apkrelay.sample',
      deviceId: 'kitkat',
      hash: '',
      sdk: '5.0.3',
    });
    const [line] = await s.waitForLines(1, 20_000);
    expect(line).toMatchObject({ mt: '0' });
    expect(String(line!.msg)).toMatch(/^[0-9a-f]{32}$/);
  } finally {
    s.close();
  }
});
