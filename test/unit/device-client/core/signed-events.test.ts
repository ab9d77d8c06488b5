/**
 * Push notices are bound to their account, app and device and to their time (format 2): the
 * shared test vectors (test/fixtures/push-notices/vectors.json, signed by the server's signer,
 * verdicts written by hand; the Java core runs the same file), then the client as a whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkNotice, type NoticeAudience } from '../../../../device-client/core/signed-events';
import { nodeCrypto } from '../../../../device-client/node/adapters';
import {
  ACCOUNT,
  giveupEvent,
  Harness,
  memoryStorage,
  settle,
  sse,
  versionEvent,
} from '../../../helpers/device-client-fakes';

interface Vectors {
  readonly publicKey: string;
  readonly now: string;
  readonly device: NoticeAudience;
  readonly cases: ReadonlyArray<{
    readonly name: string;
    readonly event: string;
    readonly data: string;
    readonly lastAcceptedAt: string | null;
    readonly verdict: string;
  }>;
}

const vectors = JSON.parse(
  readFileSync(join(__dirname, '../../../fixtures/push-notices/vectors.json'), 'utf8'),
) as Vectors;

describe('notice vectors shared with the Java core', () => {
  test('the file holds every kind of verdict', () => {
    const verdicts = new Set(vectors.cases.map((c) => c.verdict));
    expect([...verdicts].sort()).toEqual([
      'accept',
      'bad signature',
      'event addressed to another account',
      'event addressed to another app',
      'event addressed to another device',
      "issued too far from this device's clock",
      'malformed event',
      'older than the last accepted notice',
      'unsupported notice format',
    ]);
  });

  test.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const verdict = checkNotice(
      nodeCrypto,
      vectors.publicKey,
      c.event,
      JSON.parse(c.data) as Record<string, unknown>,
      vectors.device,
      c.lastAcceptedAt === null ? null : Date.parse(c.lastAcceptedAt),
      Date.parse(vectors.now),
    );
    expect(verdict.ok ? 'accept' : verdict.reason).toBe(c.verdict);
  });
});

describe('the client binds notices to its account, device and time', () => {
  test('the registration reply names the account; another account’s notice is refused', async () => {
    const h = new Harness();
    h.client.setCurrentStrategy('CUSTOM');
    await h.online();
    h.stream.write(
      sse('version', versionEvent(h.apk, 'apk-2', { account: '6745a1b2c3d4e5f6000000bb' })),
    );
    await settle();
    expect(h.of('refused')).toEqual([
      { event: 'refused', what: 'version', reason: 'event addressed to another account' },
    ]);
    expect(h.requests.filter((r) => r.url.includes('/download'))).toEqual([]);
    h.stream.write(sse('version', versionEvent(h.apk, 'apk-2', { device: 'device-2' })));
    await settle();
    expect(h.of('refused').map((e) => e.reason)).toContain('event addressed to another device');
    h.stream.write(sse('version', versionEvent(h.apk, 'apk-2', { account: ACCOUNT, device: '*' })));
    await settle();
    expect(h.of('version')).toHaveLength(1);
  });

  test('the last accepted issuedAt survives a restart; an older notice is refused after it', async () => {
    const storage = memoryStorage();
    const first = new Harness({}, storage);
    first.client.setCurrentStrategy('CUSTOM');
    await first.online();
    first.stream.write(
      sse('version', versionEvent(first.apk, 'apk-2', { issuedAt: '2026-01-01T00:00:00.000Z' })),
    );
    await settle();
    expect(first.of('version')).toHaveLength(1);
    await first.client.close(0);

    const again = new Harness({}, storage);
    again.client.setCurrentStrategy('CUSTOM');
    await again.online();
    // Two minutes older than the one accepted: a replay, refused; within a minute: accepted.
    again.stream.write(sse('giveup', giveupEvent('apk-2', null, '2025-12-31T23:58:00.000Z')));
    await settle();
    expect(again.of('refused')).toEqual([
      { event: 'refused', what: 'giveup', reason: 'older than the last accepted notice' },
    ]);
    again.stream.write(sse('giveup', giveupEvent('apk-2', null, '2025-12-31T23:59:30.000Z')));
    await settle();
    expect(again.of('refused')).toHaveLength(1);
  });
});
