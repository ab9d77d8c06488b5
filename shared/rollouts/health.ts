/**
 * The health gate's statistics (docs/rollouts.md says why these). Pure.
 *
 * Each version's unhandled exceptions over a window are taken as a Poisson count with mean
 * rate × installation-hours online. To compare the new version's rate λ₁ with the previous
 * version's λ₀ over the same window, condition on the total n = c₁ + c₀: under λ₁ = f·λ₀ the new
 * version's count is Binomial(n, p) with p = f·T₁ / (f·T₁ + T₀) (the exact conditional test of a
 * Poisson rate ratio). The gate halts when P(X ≥ c₁) < α, i.e. the data are unlikely unless the
 * new rate exceeds f times the old one, and c₁ has reached a minimum sample.
 */
export interface HealthSample {
  /** Unhandled exceptions of the new version in the window (stored or over the 24 h limit). */
  readonly newCount: number;
  /** Installation-hours online on the new version in the same window. */
  readonly newHours: number;
  readonly oldCount: number;
  readonly oldHours: number;
}

export interface GateSettings {
  /** Halt when the new rate exceeds the old by more than this factor (e.g. 2). */
  readonly factor: number;
  /** The new version needs at least this many exceptions before it can be halted. */
  readonly minExceptions: number;
  /** One-sided significance of the halt test (e.g. 0.01). */
  readonly alpha: number;
}

export type HealthVerdict = 'halt' | 'healthy' | 'hold' | 'insufficient';

export interface HealthReport extends HealthSample {
  readonly verdict: HealthVerdict;
  /** New rate / old rate (null when either rate is undefined). */
  readonly ratio: number | null;
  /** P(X ≥ c₁) under "new rate = factor × old rate" (null when not computed). */
  readonly pValue: number | null;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; about 15 significant digits). */
function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
export function binomialUpperTail(n: number, p: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const lnPmf =
    lnGamma(n + 1) -
    lnGamma(k + 1) -
    lnGamma(n - k + 1) +
    k * Math.log(p) +
    (n - k) * Math.log1p(-p);
  let pmf = Math.exp(lnPmf);
  let sum = pmf;
  for (let j = k; j < n; j++) {
    pmf *= ((n - j) / (j + 1)) * (p / (1 - p));
    sum += pmf;
  }
  return Math.min(1, sum);
}

function rateRatio(s: HealthSample): number | null {
  if (s.newHours <= 0 || s.oldHours <= 0) return null;
  const oldRate = s.oldCount / s.oldHours;
  const newRate = s.newCount / s.newHours;
  if (oldRate === 0) return newRate === 0 ? 1 : null;
  return newRate / oldRate;
}

/**
 * `halt` when the new version is significantly worse than `factor` × the old; `healthy` when its
 * point estimate is at most `factor` × the old (or neither crashed); `hold` otherwise (worse, not
 * yet proven); `insufficient` without hours on both versions.
 */
export function judgeHealth(s: HealthSample, g: GateSettings): HealthReport {
  const ratio = rateRatio(s);
  if (s.newHours <= 0 || s.oldHours <= 0)
    return { ...s, verdict: 'insufficient', ratio, pValue: null };
  const n = s.newCount + s.oldCount;
  const p = (g.factor * s.newHours) / (g.factor * s.newHours + s.oldHours);
  const pValue = binomialUpperTail(n, p, s.newCount);
  if (s.newCount >= g.minExceptions && pValue < g.alpha)
    return { ...s, verdict: 'halt', ratio, pValue };
  const healthy = s.newCount === 0 || (ratio !== null && ratio <= g.factor);
  return { ...s, verdict: healthy ? 'healthy' : 'hold', ratio, pValue };
}

/** The gate's settings (ROLLOUT_* in shared/config.ts). */
export interface RolloutSettings extends GateSettings {
  /** How often workers evaluate running rollouts. */
  readonly evaluationMs: number;
  /** A healthy stage advances once it has run this long. */
  readonly soakMs: number;
}

/** The one-sided significance of the halt test: fixed (docs/rollouts.md says why). */
export const HALT_ALPHA = 0.01;

/** The product's defaults (ROLLOUT_* unset). */
export const DEFAULT_ROLLOUT_SETTINGS: RolloutSettings = {
  evaluationMs: 300_000,
  soakMs: 3_600_000,
  factor: 2,
  minExceptions: 10,
  alpha: HALT_ALPHA,
};
