import type { PendingCount } from '../../../../shared/exceptions/collections';
import { idsToCheck, planCount } from '../../../../workers/exceptions/group-pending';

const NOW = new Date('2026-12-01T12:00:00.000Z');
const HOUR = 3_600_000;
const KEEP = 8 * 24 * HOUR;
const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR);
const entry = (reportId: string) => ({ reportId });
const ids = (list: readonly { reportId: string }[]) => list.map((e) => e.reportId);

test('reports neither pending nor stored are counted, once per id, and become pending', () => {
  const plan = planCount([entry('a'), entry('b'), entry('a')], [], new Set(), NOW, KEEP);
  expect(ids(plan.fresh)).toEqual(['a', 'b']);
  expect(plan.pending).toEqual([
    { id: 'a', at: NOW },
    { id: 'b', at: NOW },
  ]);
  expect(plan.changed).toBe(true);
});

test('a report already pending (counted, not yet stored) is not counted again', () => {
  const pending: PendingCount[] = [{ id: 'a', at: at(1) }];
  const plan = planCount([entry('a')], pending, new Set(), NOW, KEEP);
  expect(plan).toEqual({ fresh: [], pending: [{ id: 'a', at: at(1) }], changed: false });
});

test('a report whose marker exists is not counted again, and leaves pending', () => {
  const pending: PendingCount[] = [
    { id: 'a', at: at(2) },
    { id: 'b', at: at(1) },
  ];
  const plan = planCount([entry('a'), entry('c')], pending, new Set(['a', 'c']), NOW, KEEP);
  expect(plan).toEqual({ fresh: [], pending: [{ id: 'b', at: at(1) }], changed: true });
});

test('a pending id without marker stays until keepMs after its count, then goes', () => {
  const pending: PendingCount[] = [
    { id: 'old', at: at(8 * 24) },
    { id: 'young', at: at(8 * 24 - 1) },
  ];
  const plan = planCount([entry('n')], pending, new Set(), NOW, KEEP);
  expect(ids(plan.fresh)).toEqual(['n']);
  expect(plan.pending).toEqual([
    { id: 'young', at: at(8 * 24 - 1) },
    { id: 'n', at: NOW },
  ]);
});

test('the marker ids to read: pending and batch ids, each once', () => {
  const pending: PendingCount[] = [{ id: 'a', at: at(1) }];
  expect(idsToCheck([entry('b'), entry('a'), entry('b')], pending)).toEqual(['a', 'b']);
});
