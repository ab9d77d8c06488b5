/**
 * Per-process caches of what every device request looks up: the account of an API key and the app
 * of (account, package). A fleet sends the same key and package from thousands of devices, and
 * neither look-up is by `_id` (store.ts says what that costs): connecting 10,000 streams or taking
 * their heartbeats would keep the database saturated. Same policy as the exception intake's caches:
 * a revoked key stops working for devices within `ttlMs` (5 s); unknown keys and packages are never
 * cached, so a first upload or a corrected key works at once. Keyed by a digest: the cache never
 * holds API keys.
 */
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { AccountsService, Authenticated } from '../accounts/service';
import { findApp } from '../catalog/queries';
import type { AppDoc } from '../catalog/types';
import { TtlCache } from '../ttl-cache';

const TTL_MS = 5_000;

export interface DeviceLookups {
  /** `deps.accounts` with `authenticateKey` (and `authenticateApiKey`) answered from the cache. */
  readonly accounts: AccountsService;
  app(accountId: string, pkg: string): Promise<AppDoc | null>;
}

export function deviceLookups(
  deps: { readonly accounts: AccountsService; readonly db: Db },
  clock?: () => number,
): DeviceLookups {
  const accounts = new TtlCache<Authenticated | null>(TTL_MS, 10_000, clock);
  const apps = new TtlCache<AppDoc | null>(TTL_MS, 10_000, clock);
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
  };
}
