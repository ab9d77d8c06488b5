/**
 * The fuzz harness itself: a target that misbehaves on purpose (canary-target.ts) must show up as
 * crashes (untyped exception, oversized allocation) and hangs (spinning, never settling), each
 * input saved for replay, while typed errors count as verdicts and the run goes on to the end.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fuzzDefaults, runFuzz } from './lib/harness';

test('the harness reports crashes, hangs and memory breaches by input, and finishes the run', async () => {
  const failureDir = mkdtempSync(path.join(tmpdir(), 'fuzz-canary-'));
  try {
    const r = await runFuzz({ ...fuzzDefaults('canary', 7, 12), hangMs: 500, failureDir });
    const byIndex = r.failures
      .map((f) => [f.index, f.kind, f.how] as const)
      .sort((a, b) => a[0] - b[0]);
    // Behaviour i % 6: ok, type-error, spin, allocate, typed-error (a verdict), never-settles.
    expect(byIndex).toEqual([
      [1, 'crash', 'canary:type-error'],
      [2, 'hang', 'canary:spin'],
      [3, 'memory', 'canary:allocate'],
      [5, 'hang', 'canary:never-settles'],
      [7, 'crash', 'canary:type-error'],
      [8, 'hang', 'canary:spin'],
      [9, 'memory', 'canary:allocate'],
      [11, 'hang', 'canary:never-settles'],
    ]);
    expect(r).toMatchObject({ inputsFuzzed: 12, crashes: 4, hangs: 4 });
    for (const f of r.failures) {
      expect(existsSync(f.file)).toBe(true);
      expect(readFileSync(f.file)[0]).toBe(f.index % 6);
    }
  } finally {
    rmSync(failureDir, { recursive: true, force: true });
  }
}, 60_000);
