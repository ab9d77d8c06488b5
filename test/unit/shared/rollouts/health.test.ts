import { binomialUpperTail, judgeHealth } from '../../../../shared/rollouts/health';

// Binomial tails computed by hand: P(X ≥ k) = Σ C(n, j) p^j (1-p)^(n-j).
test.each([
  [10, 0.5, 8, 56 / 1024], // (45 + 10 + 1) / 2^10
  [10, 0.5, 0, 1],
  [10, 0.5, 11, 0],
  [5, 0.2, 5, 0.00032], // 0.2^5
  [4, 0.25, 3, 13 / 256], // 4·(1/4)^3·(3/4) + (1/4)^4 = 12/256 + 1/256
  [3, 0.5, 1, 7 / 8],
])('P(Bin(%d, %d) ≥ %d) = %d', (n, p, k, expected) => {
  expect(binomialUpperTail(n, p, k)).toBeCloseTo(expected, 10);
});

const gate = { factor: 2, minExceptions: 5, alpha: 0.01 };

test('a 5x crash wave on equal exposure halts', () => {
  // 50 vs 10 over 10 h each: p = 2/3; P(X ≥ 50 | n = 60) = 0.0031684840872191 (exact sum with
  // Python's fractions: Σ_{k=50..60} C(60, k) (2/3)^k (1/3)^(60-k)).
  const r = judgeHealth({ newCount: 50, newHours: 10, oldCount: 10, oldHours: 10 }, gate);
  expect(r.verdict).toBe('halt');
  expect(r.ratio).toBe(5);
  expect(r.pValue).toBeCloseTo(0.0031684840872191, 12);
});

test('equal rates are healthy; a small excess is held; too few exceptions never halt', () => {
  expect(
    judgeHealth({ newCount: 10, newHours: 10, oldCount: 10, oldHours: 10 }, gate).verdict,
  ).toBe('healthy');
  // 3x the old rate but not significant against 2x: hold (no advance, no halt).
  expect(judgeHealth({ newCount: 6, newHours: 10, oldCount: 2, oldHours: 10 }, gate).verdict).toBe(
    'hold',
  );
  // Significant, but below the minimum sample of 5: hold.
  expect(judgeHealth({ newCount: 4, newHours: 1, oldCount: 0, oldHours: 100 }, gate).verdict).toBe(
    'hold',
  );
  expect(judgeHealth({ newCount: 0, newHours: 1, oldCount: 0, oldHours: 1 }, gate).verdict).toBe(
    'healthy',
  );
});

test('without hours on both versions nothing is decided', () => {
  const r = judgeHealth({ newCount: 9, newHours: 0, oldCount: 1, oldHours: 3 }, gate);
  expect(r).toMatchObject({ verdict: 'insufficient', ratio: null, pValue: null });
});
