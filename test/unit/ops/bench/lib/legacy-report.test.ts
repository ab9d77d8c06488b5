import type { SideResult } from '../../../../../ops/bench/lib/fanout-report';
import { legacyVerdicts, ratios } from '../../../../../ops/bench/lib/legacy-report';

/** A side with the figures the verdicts read; the rest is filler. */
function side(p99: number, rssPerConnection: number, missing = 0): SideResult {
  return {
    latency: { p50: p99 / 2, p99, last: p99 },
    missing,
    dropped: 0,
    requestMs: 10,
    rssBefore: 100,
    rssIdle: 200,
    rssPerConnection,
    eventBytes: 40,
    connectSeconds: 1,
    cpuSeconds: {},
  };
}

describe('legacy push report: issue 18 targets (p99 <= 1.25x SSE, RSS <= SSE)', () => {
  test('ratios are legacy over SSE', () => {
    const r = { devices: 10_000, sse: side(800, 40_000), legacy: side(1_000, 30_000), errors: {} };
    expect(ratios(r)).toEqual({ p99: 1.25, rss: 0.75 });
  });

  test('exactly 1.25x and equal RSS: both met', () => {
    const r = { devices: 10_000, sse: side(800, 40_000), legacy: side(1_000, 40_000), errors: {} };
    expect(legacyVerdicts([r])).toEqual([
      'N=10000: p99 legacy/SSE 1.25x (target <= 1.25x): met; ' +
        'RSS per idle socket legacy/SSE 1.00x (target <= 1x): met',
    ]);
  });

  test('slower and heavier legacy: both NOT met; under 10,000 says where the targets are', () => {
    const r = { devices: 1_000, sse: side(100, 40_000), legacy: side(130, 42_000), errors: {} };
    expect(legacyVerdicts([r])).toEqual([
      'N=1000: p99 legacy/SSE 1.30x (target <= 1.25x): NOT met; ' +
        'RSS per idle socket legacy/SSE 1.05x (target <= 1x): NOT met (the targets are at 10000)',
    ]);
  });

  test('a device that got nothing fails the latency target whatever the p99', () => {
    const r = { devices: 10_000, sse: side(800, 40_000), legacy: side(500, 30_000, 3), errors: {} };
    expect(legacyVerdicts([r])[0]).toContain('(target <= 1.25x): NOT met (3 devices got nothing)');
  });

  test('a failed side: no verdict, and why', () => {
    const r = { devices: 10_000, sse: side(800, 40_000), legacy: null, errors: { PushLink: 'x' } };
    expect(ratios(r)).toBeNull();
    expect(legacyVerdicts([r])).toEqual(['N=10000: no verdict; PushLink FAILED: x']);
  });
});
