/**
 * Per-process caches of what every device request looks up: the account of an API key, the app
 * of (account, package) and APK documents by id. A fleet sends the same key and package from
 * thousands of devices, and neither of the first two look-ups is by `_id` (store.ts says what that
 * costs): connecting 10,000 streams or taking their heartbeats would keep the database saturated.
 * Same policy as the exception intake's caches: a revoked key stops working for devices within
 * `ttlMs` (5 s); unknown keys, packages and APKs are never cached, so a first upload or a corrected
 * key works at once. Keyed by a digest: the cache never holds API keys.
 * APK documents never change once stored but for their wrapped data key, rewritten by a reseal
 * under the new master key while the old one still opens it (docs/key-rotation.md: the old key is
 * dropped by a restart, which empties this cache): they are kept 10 minutes, as the push hub does.
 */
import { createHash } from 'node:crypto';
import type { Db, ObjectId } from 'mongodb';
import type { AccountsService, Authenticated } from '../accounts/service';
import { apkById, findApp } from '../catalog/queries';
import type { ApkDoc, AppDoc } from '../catalog/types';
import { TtlCache } from '../ttl-cache';

const TTL_MS = 5_000;
const APK_TTL_MS = 10 * 60_000;

export interface DeviceLookups {
  /** `deps.accounts` with `authenticateKey` (and `authenticateApiKey`) answered from the cache. */
  readonly accounts: AccountsService;
  app(accountId: string, pkg: string): Promise<AppDoc | null>;
  /** The account's APK document `id` (cached once found). */
  apk(accountId: string, id: ObjectId): Promise<ApkDoc | null>;
}

export function deviceLookups(
  deps: { readonly accounts: AccountsService; readonly db: Db },
  clock?: () => number,
): DeviceLookups {
  const accounts = new TtlCache<Authenticated | null>(TTL_MS, 10_000, clock);
  const apps = new TtlCache<AppDoc | null>(TTL_MS, 10_000, clock);
  const apks = new TtlCache<ApkDoc | null>(APK_TTL_MS, 1_000, clock);
  const found = (v: unknown) => v !== null;
  const authenticateKey = (presented: string) =>
    accounts.get(
      createHash('sha256').update(presented).digest('base64'),
      () => deps.accounts.authenticateKey(presented),
      found,
    );
  return {
    accounts: {
      ...deps.accounts,
      authenticateKey,
      authenticateApiKey: async (apiKey) => {
        const found = await authenticateKey(apiKey);
        return found?.principal.kind === 'account-key' ? found.account : null;
      },
    },
    app: (accountId, pkg) =>
      apps.get(`${accountId}\n${pkg}`, () => findApp(deps.db, accountId, pkg), found),
    apk: (accountId, id) =>
      apks.get(`${accountId}\n${id.toHexString()}`, () => apkById(deps.db, accountId, id), found),
  };
}
