/** The hub's per-app, per-notice cache of targets (api/push/app-targets.ts): when it loads. */
import { ObjectId } from 'mongodb';
import { AppTargetsCache, type AppTargets } from '../../../../api/push/app-targets';
import type { AppDoc } from '../../../../shared/catalog/types';

const app = { _id: new ObjectId('65f000000000000000000001'), accountId: 'acc' } as AppDoc;
const found: AppTargets = {
  app,
  loaded: { targets: { current: null, rollout: null }, docs: new Map() },
  versionCodes: new Map(),
};

function counted(results: Array<AppTargets | null | Error>) {
  const calls: string[] = [];
  const load = (appId: string) => {
    calls.push(appId);
    const next = calls.length <= results.length ? results[calls.length - 1]! : found;
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return { calls, load };
}

test('one load per app and notice id within the TTL; a new notice id loads again', async () => {
  let now = 0;
  const { calls, load } = counted([]);
  const cache = new AppTargetsCache(load, () => now, 10_000);
  await cache.get('a1', '1-0');
  now = 9_999;
  expect(await cache.get('a1', '1-0')).toBe(found);
  expect(calls).toEqual(['a1']);
  await cache.get('a1', '2-0');
  await cache.get('a2', '2-0');
  expect(calls).toEqual(['a1', 'a1', 'a2']);
});

test('an entry older than the TTL is loaded again', async () => {
  let now = 0;
  const { calls, load } = counted([]);
  const cache = new AppTargetsCache(load, () => now, 10_000);
  await cache.get('a1', '1-0');
  now = 10_000;
  await cache.get('a1', '1-0');
  expect(calls).toEqual(['a1', 'a1']);
});

test('gets at the same time share one load', async () => {
  const { calls, load } = counted([]);
  const cache = new AppTargetsCache(load, () => 0, 10_000);
  const all = await Promise.all([1, 2, 3].map(() => cache.get('a1', '1-0')));
  expect(all).toEqual([found, found, found]);
  expect(calls).toEqual(['a1']);
});

test('a failed load and a missing app are not kept', async () => {
  const { calls, load } = counted([new Error('database down'), null, found]);
  const cache = new AppTargetsCache(load, () => 0, 10_000);
  await expect(cache.get('a1', '1-0')).rejects.toThrow('database down');
  expect(await cache.get('a1', '1-0')).toBeNull();
  expect(await cache.get('a1', '1-0')).toBe(found);
  expect(await cache.get('a1', '1-0')).toBe(found);
  expect(calls).toEqual(['a1', 'a1', 'a1']);
});
