/**
 * How the v1 manifest parser scales on hostile input: a long run of continuation lines and a
 * manifest of many sections, each at 1x and 10x its size. Linear work gives about 10x the time;
 * quadratic work about 100x. The unit tests check what the parser returns on these inputs; this
 * is where their cost is shown, as a ratio measured in the same run (a wall-clock bound in a test
 * fails on a busy 2-core machine for reasons that are not the product's).
 */
import { parseManifest } from '../../../shared/apk/v1/manifest-parser';

export interface ScalingRow {
  readonly input: string;
  readonly smallMs: number;
  readonly largeMs: number;
  /** largeMs / smallMs for an input 10x larger: about 10 when linear. */
  readonly growth: number;
}

const continuation = (n: number) =>
  Buffer.from(`M: 1\n\nName: ${'x'.repeat(70)}${'\n y'.repeat(n)}\n\n`, 'utf8');

const sections = (n: number) =>
  Buffer.from(
    `Manifest-Version: 1.0\r\n\r\n${Array.from(
      { length: n },
      (_, i) => `Name: f${i}\r\nSHA-256-Digest: AAAA\r\n\r\n`,
    ).join('')}`,
    'utf8',
  );

function bestMs(input: Buffer, runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    parseManifest(input);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return best;
}

export function manifestScaling(runs = 5): ScalingRow[] {
  const cases: Array<[string, (n: number) => Buffer, number]> = [
    ['continuation lines', continuation, 20_000],
    ['sections', sections, 5_000],
  ];
  return cases.map(([name, make, n]) => {
    const smallMs = bestMs(make(n), runs);
    const largeMs = bestMs(make(10 * n), runs);
    return {
      input: `${name}: ${n} vs ${10 * n}`,
      smallMs,
      largeMs,
      growth: largeMs / smallMs,
    };
  });
}
