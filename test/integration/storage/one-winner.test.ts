/**
 * What must happen once happens once, against the real store (shared/storage/claims.ts): eight
 * racers at a time, twenty rounds, exactly one winner each round. On the default store a
 * conditional update alone let more than one racer win in about half the rounds: a TOTP code or a
 * recovery code used twice, an invitation used and revoked at once, a rollout moved on twice from
 * one revision (the last write undoing the others), a single-use download link counted twice. And
 * an app document written by several paths
 * at once keeps every write (shared/catalog/app-lock.ts), as do an account's and a TOTP factor's
 * (shared/accounts/doc-locks.ts).
 */
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { accountsCollections, ensureAccountsIndexes } from '../../../shared/accounts/collections';
import { createAccountsService } from '../../../shared/accounts/service';
import {
  claimInvitation,
  insertInvitation,
  revokePending,
} from '../../../shared/accounts/invitations';
import { hashRecoveryCode } from '../../../shared/accounts/recovery-codes';
import {
  startTotp,
  switchTotp,
  useRecoveryCode,
  useTotpCode,
} from '../../../shared/accounts/totp-factors';
import { countDownload } from '../../../shared/catalog/download-links';
import type { ApkDoc, AppDoc } from '../../../shared/catalog/types';
import { catalogCollections } from '../../../shared/catalog/collections';
import { createKeyRing } from '../../../shared/crypto/keys';
import { announceTargets, moveCurrent } from '../../../shared/rollouts/current-apk';
import type { AcceptableApk } from '../../../shared/uploads/judge-apk';
import { upsertApp } from '../../../workers/uploads/ingest-app';
import { freshWindow, insertRollout, saveHealth } from '../../../shared/rollouts/store';
import { claimOnce, ensureClaimsIndexes, underClaim } from '../../../shared/storage/claims';
import { useIsolatedMongo } from '../../helpers/services';
import { referenceTotp, stepOf } from '../../helpers/totp-reference';

jest.setTimeout(120_000);
const store = useIsolatedMongo();
const ROUNDS = 20;
const RACERS = 8;
const keys = createKeyRing(randomBytes(32));
const T0 = Date.parse('2026-11-29T12:00:00Z');
const ONCE = Array<number>(ROUNDS).fill(1);

/**
 * For each of ROUNDS rounds: `prepare` sets the round up and answers its racers (RACERS of them
 * when it answers one); all race at once; how many won.
 */
async function winnersPerRound(
  prepare: (round: number) => Promise<(i: number) => Promise<boolean>>,
): Promise<number[]> {
  const wins: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const race = await prepare(round);
    const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => race(i)));
    wins.push(results.filter(Boolean).length);
  }
  return wins;
}

/** A user whose factor is on (its first code used at `nowMs`), with one recovery code. */
async function factorOn(user: string, nowMs: number, recovery: string): Promise<string> {
  const db = store.mongo.db;
  const seed = await startTotp(db, keys, user, 'account', new Date(nowMs));
  if (!seed) throw new Error('factor already on');
  const on = await switchTotp(db, keys, user, {
    on: true,
    code: referenceTotp(seed, stepOf(nowMs)),
    nowMs,
    recoveryHashes: [hashRecoveryCode(recovery)],
  });
  if (!on) throw new Error('factor not turned on');
  return seed;
}

beforeAll(async () => {
  await ensureAccountsIndexes(store.mongo.db);
  await ensureClaimsIndexes(store.mongo.db);
});

test('a key is claimed once', async () => {
  const at = new Date(T0);
  const until = new Date(T0 + 60_000);
  const wins = await winnersPerRound((round) =>
    Promise.resolve(() => claimOnce(store.mongo.db, `test:${round}`, at, until)),
  );
  expect(wins).toEqual(ONCE);
});

test('a claim whose work failed is given back; a done one is kept', async () => {
  const db = store.mongo.db;
  const at = new Date(T0);
  const until = new Date(T0 + 60_000);
  const failing = () => Promise.reject(new Error('the store went away'));
  await expect(underClaim(db, 'test:failed', at, until, failing, false)).rejects.toThrow(
    'went away',
  );
  expect(await underClaim(db, 'test:failed', at, until, () => Promise.resolve(true), false)).toBe(
    true,
  );
  expect(await underClaim(db, 'test:failed', at, until, () => Promise.resolve(true), false)).toBe(
    false,
  );
});

test('a TOTP code is accepted once', async () => {
  const wins = await winnersPerRound(async (round) => {
    const user = `member:totp-${round}`;
    const seed = await factorOn(user, T0, 'unused');
    // The next step's code, raced.
    const nowMs = T0 + 30_000;
    const code = referenceTotp(seed, stepOf(nowMs));
    return () => useTotpCode(store.mongo.db, keys, user, code, { enabled: true, nowMs });
  });
  expect(wins).toEqual(ONCE);
});

test('a recovery code is used once', async () => {
  const wins = await winnersPerRound(async (round) => {
    const user = `member:recovery-${round}`;
    const recovery = `code-${round}`;
    await factorOn(user, T0, recovery);
    return () => useRecoveryCode(store.mongo.db, user, hashRecoveryCode(recovery));
  });
  expect(wins).toEqual(ONCE);
});

test('an invitation is used or revoked, once', async () => {
  const db = store.mongo.db;
  const now = new Date(T0);
  const outcomes: string[] = [];
  const wins = await winnersPerRound(async (round) => {
    const accountId = `account-${round}`;
    const { invitation } = await insertInvitation(
      db,
      {
        accountId,
        email: `joiner-${round}@example.com`,
        role: 'developer',
        invitedBy: 'owner',
        inviterMemberId: null,
      },
      now,
    );
    // Half the racers join, half revoke.
    return async (i) => {
      const won =
        i % 2 === 0
          ? await claimInvitation(db, invitation._id, now)
          : await revokePending(db, accountId, invitation._id.toHexString(), now);
      if (won) outcomes.push(i % 2 === 0 ? 'used' : 'revoked');
      return won !== null;
    };
  });
  expect(wins).toEqual(ONCE);
  // The stored state is the winner's: used, or revoked, never both.
  const docs = await db.collection('invitations').find({}).toArray();
  expect(docs.filter((d) => d.usedAt !== null && d.revokedAt !== null)).toEqual([]);
  expect(outcomes).toHaveLength(ROUNDS);
});

test('a rollout moves on from a revision once', async () => {
  const db = store.mongo.db;
  const now = new Date(T0);
  const wins = await winnersPerRound(async () => {
    const prev = await insertRollout(db, {
      _id: new ObjectId(),
      accountId: 'account',
      package: 'dev.apkrelay.sample',
      apkId: new ObjectId(),
      previousApkId: null,
      state: 'running',
      stages: [10, 100],
      stageIndex: 0,
      targeting: { metadata: null, deviceIds: [] },
      startedAt: now,
      stageStartedAt: now,
      updatedAt: now,
      health: freshWindow(now, 0, 0),
    });
    return (i) => saveHealth(db, prev, { ...freshWindow(now, i, i), newHours: i });
  });
  expect(wins).toEqual(ONCE);
});

test("an app's current APK, version and label, written at once, all hold", async () => {
  const db = store.mongo.db;
  const { apps } = catalogCollections(db);
  const now = new Date(T0);
  const notices = { publish: () => Promise.resolve() };
  const seen: Array<Pick<AppDoc, 'currentVersion' | 'label'> & { current: boolean }> = [];
  for (let round = 0; round < 10; round += 1) {
    const app: AppDoc = {
      _id: new ObjectId(),
      accountId: 'account',
      package: `dev.apkrelay.race${round}`,
      label: 'first',
      signerSha256: 'signer',
      currentApkId: null,
      currentVersion: 0,
      createdAt: now,
      updatedAt: now,
    };
    await apps.insertOne(app);
    const apk = { _id: new ObjectId(), appId: app._id, accountId: 'account' } as ApkDoc;
    const upload = { package: app.package, signerSha256: 'signer' } as AcceptableApk;
    // One move, four announcements (each bumps the version) and three uploads' labels, at once.
    await Promise.all([
      moveCurrent(db, apk, now),
      ...[1, 2, 3, 4].map(() => announceTargets(db, notices, app, now)),
      ...['second', 'third', 'fourth'].map((label) => upsertApp(db, 'account', upload, label, now)),
    ]);
    const after = await apps.findOne({ _id: app._id });
    seen.push({
      current: after?.currentApkId?.equals(apk._id) ?? false,
      currentVersion: after?.currentVersion ?? -1,
      label: ['second', 'third', 'fourth'].includes(after?.label ?? '') ? 'raced' : 'lost',
    });
  }
  expect(seen).toEqual(
    Array.from({ length: 10 }, () => ({ current: true, currentVersion: 5, label: 'raced' })),
  );
});

test('a single-use download link is counted once', async () => {
  const db = store.mongo.db;
  const now = new Date(T0);
  const { downloadLinks } = catalogCollections(db);
  const wins = await winnersPerRound(async () => {
    const link = {
      _id: new ObjectId(),
      accountId: 'account',
      appId: new ObjectId(),
      apkId: new ObjectId(),
      package: 'dev.apkrelay.sample',
      createdAt: now,
      expiresAt: new Date(T0 + 3_600_000),
      maxDownloads: 1,
      downloads: 0,
      revokedAt: null,
    };
    await downloadLinks.insertOne(link);
    return async () => (await countDownload(db, link, now)) !== null;
  });
  expect(wins).toEqual(ONCE);
});

test("an account's regenerated key and its device-only switch, written at once, both hold", async () => {
  const db = store.mongo.db;
  const accounts = createAccountsService(db, keys);
  const ctx = { actor: { kind: 'account-key' as const, id: 'test', name: 'test' }, address: null };
  const held: Array<{ key: boolean; deviceOnly: boolean }> = [];
  for (let round = 0; round < 10; round += 1) {
    const { account } = await accounts.create({
      email: `race-${round}-${randomBytes(4).toString('hex')}@example.com`,
      password: 'password-123',
    });
    const [apiKey] = await Promise.all([
      accounts.regenerateApiKey(account.id),
      accounts.setApiKeyDeviceOnly(account.id, true, ctx),
    ]);
    held.push({
      key: (await accounts.authenticateApiKey(apiKey)) !== null,
      deviceOnly: await accounts.apiKeyDeviceOnly(account.id),
    });
  }
  expect(held).toEqual(Array.from({ length: 10 }, () => ({ key: true, deviceOnly: true })));
});

test("a TOTP code and a recovery code used at once: the code's step and the removal both hold", async () => {
  const db = store.mongo.db;
  const held: Array<{ lastStep: number | null; recoveryLeft: number }> = [];
  for (let round = 0; round < 10; round += 1) {
    const user = `member:both-${round}`;
    const recovery = `both-${round}`;
    const seed = await factorOn(user, T0, recovery);
    const nowMs = T0 + 30_000;
    const code = referenceTotp(seed, stepOf(nowMs));
    await Promise.all([
      useTotpCode(db, keys, user, code, { enabled: true, nowMs }),
      useRecoveryCode(db, user, hashRecoveryCode(recovery)),
    ]);
    const factor = await accountsCollections(db).totpFactors.findOne({ _id: user });
    held.push({
      lastStep: factor?.lastStep ?? null,
      recoveryLeft: factor?.recoveryHashes?.length ?? -1,
    });
  }
  expect(held).toEqual(
    Array.from({ length: 10 }, () => ({ lastStep: stepOf(T0 + 30_000), recoveryLeft: 0 })),
  );
});
