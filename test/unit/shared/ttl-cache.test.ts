import { TtlCache } from '../../../shared/ttl-cache';

test('serves a value until its TTL passes, then loads again', async () => {
  let now = 1_000;
  let loads = 0;
  const cache = new TtlCache<number>(5_000, 10, () => now);
  const load = () => Promise.resolve(++loads);
  expect(await cache.get('k', load)).toBe(1);
  now += 4_999;
  expect(await cache.get('k', load)).toBe(1);
  now += 1;
  expect(await cache.get('k', load)).toBe(2);
});

test('values refused by keep() are not cached', async () => {
  let loads = 0;
  const cache = new TtlCache<number | null>(5_000, 10, () => 0);
  const load = () => Promise.resolve(++loads > 1 ? loads : null);
  expect(await cache.get('k', load, (v) => v !== null)).toBeNull();
  expect(await cache.get('k', load, (v) => v !== null)).toBe(2);
  expect(await cache.get('k', load, (v) => v !== null)).toBe(2);
});

test('holds at most maxEntries, dropping the oldest', async () => {
  const cache = new TtlCache<string>(60_000, 3, () => 0);
  for (const k of ['a', 'b', 'c', 'd']) await cache.get(k, () => Promise.resolve(k));
  expect(cache.size).toBe(3);
  expect(await cache.get('a', () => Promise.resolve('reloaded'))).toBe('reloaded');
  expect(await cache.get('d', () => Promise.resolve('reloaded'))).toBe('d');
});
