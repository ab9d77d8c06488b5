import { budgetOf, countsAt, DAY_MS } from '../../../../shared/exceptions/sliding-window';

const T = Date.parse('2026-01-01T00:00:00.000Z');

test('a report counts while it is at most 24 h old', () => {
  expect(countsAt(T, T)).toBe(true);
  expect(countsAt(T, T + DAY_MS - 1)).toBe(true);
  expect(countsAt(T, T + DAY_MS)).toBe(true);
  expect(countsAt(T, T + DAY_MS + 1)).toBe(false);
  expect(countsAt(T, T + 3 * DAY_MS)).toBe(false);
});

test('budget: remaining slots, and when exhausted the instant the oldest stops counting', () => {
  expect(budgetOf({ count: 0, oldestMs: null }, 10)).toEqual({
    limit: 10,
    remaining: 10,
    freesAt: null,
  });
  expect(budgetOf({ count: 3, oldestMs: T }, 10)).toEqual({
    limit: 10,
    remaining: 7,
    freesAt: null,
  });
  expect(budgetOf({ count: 10, oldestMs: T }, 10)).toEqual({
    limit: 10,
    remaining: 0,
    freesAt: new Date(T + DAY_MS + 1),
  });
  // A plan lowered below the window's count: nothing remains, never negative.
  expect(budgetOf({ count: 12, oldestMs: T }, 4).remaining).toBe(0);
  // A plan of 0 installations with an empty window: nothing remains and nothing will free.
  expect(budgetOf({ count: 0, oldestMs: null }, 0)).toEqual({
    limit: 0,
    remaining: 0,
    freesAt: null,
  });
});

test('freesAt agrees with countsAt', () => {
  const { freesAt } = budgetOf({ count: 1, oldestMs: T }, 1);
  expect(countsAt(T, freesAt!.getTime() - 1)).toBe(true);
  expect(countsAt(T, freesAt!.getTime())).toBe(false);
});
