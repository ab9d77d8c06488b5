import { QUEUES } from '../../../../shared/queues';
import { housekeepingQueue } from '../../../../shared/queues/housekeeping';
import type { Db } from 'mongodb';
import { createProcessors, type ProcessorDeps } from '../../../../workers/queue-processors';
import { missingProcessors } from '../../../../workers/runtime';

test('every registered queue has a processor', () => {
  // Processors only capture their dependencies when built; none is called here.
  const db = { collection: () => ({}) } as unknown as Db;
  const processors = createProcessors({ db } as unknown as ProcessorDeps);
  expect(missingProcessors(QUEUES, processors)).toEqual([]);
});

test('a queue without a processor is reported', () => {
  expect(
    missingProcessors([{ name: 'housekeeping' }, { name: 'orphan' }], { housekeeping: () => 1 }),
  ).toEqual(['orphan']);
});

test('queue names are unique', () => {
  const names = QUEUES.map((q) => q.name);
  expect(new Set(names).size).toBe(names.length);
});

test('housekeeping payloads are validated when read back', () => {
  expect(housekeepingQueue.parse({ task: 'sweep-orphan-blobs', olderThanMs: 5 })).toEqual({
    task: 'sweep-orphan-blobs',
    olderThanMs: 5,
  });
  expect(() => housekeepingQueue.parse({ task: 'rm -rf', olderThanMs: 5 })).toThrow(/unknown task/);
  expect(() => housekeepingQueue.parse({ task: 'sweep-orphan-blobs', olderThanMs: -1 })).toThrow();
  expect(() => housekeepingQueue.parse(null)).toThrow(/object/);
});
