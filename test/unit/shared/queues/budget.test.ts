import { overdueJobs } from '../../../../shared/queues/budget';

test('a job is overdue when active for longer than the budget, not at it', () => {
  const now = 1_000_000;
  const active = [
    { id: 'a', processedOn: now - 180_001 }, // one ms over a 3-minute budget
    { id: 'b', processedOn: now - 180_000 }, // exactly at it
    { id: 'c', processedOn: now - 5_000 },
    { id: 'd' }, // not started (no processedOn): not timed
    { processedOn: now - 999_999 }, // no id: cannot be named
    { id: 'e', processedOn: now - 3_600_000 },
  ];
  expect(overdueJobs(active, 180_000, now)).toEqual([
    { id: 'a', activeMs: 180_001 },
    { id: 'e', activeMs: 3_600_000 },
  ]);
});

test('nothing active, nothing overdue', () => {
  expect(overdueJobs([], 1_000, 5_000)).toEqual([]);
});
