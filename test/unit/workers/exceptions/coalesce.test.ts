import { coalesce } from '../../../../workers/exceptions/coalesce';

test('items submitted while a flush runs go together in the next one; each settles with its batch', async () => {
  const batches: number[][] = [];
  let release: () => void = () => undefined;
  const c = coalesce<number>(async (items) => {
    batches.push([...items]);
    if (items.includes(9)) throw new Error('batch with 9 failed');
    if (batches.length === 1) await new Promise<void>((r) => (release = r));
  }, 3);
  const first = c.submit(1);
  const rest = [2, 3, 4, 5, 9].map((n) =>
    c.submit(n).then(
      () => 'ok',
      () => 'failed',
    ),
  );
  release();
  await first;
  expect(await Promise.all(rest)).toEqual(['ok', 'ok', 'ok', 'failed', 'failed']);
  expect(batches).toEqual([[1], [2, 3, 4], [5, 9]]);
});

test('a lone item is flushed at once', async () => {
  const seen: number[] = [];
  const c = coalesce<number>((items) => {
    seen.push(...items);
    return Promise.resolve();
  });
  await c.submit(7);
  expect(seen).toEqual([7]);
});

test('a flush that never settles fails its batch at the deadline, and the next batch still flushes', async () => {
  const flushed: number[][] = [];
  const c = coalesce<number>(
    (items) => {
      flushed.push([...items]);
      return items.includes(1) ? new Promise<void>(() => undefined) : Promise.resolve();
    },
    64,
    { ms: 30, what: 'test flush' },
  );
  const stuck = c.submit(1).catch((err: Error) => err.message);
  const next = c.submit(2);
  expect(await stuck).toBe('test flush: no result within 30 ms (STEP_DEADLINE_EXCEEDED)');
  await next;
  expect(flushed).toEqual([[1], [2]]);
});
