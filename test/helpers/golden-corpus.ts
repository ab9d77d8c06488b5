/**
 * Google's apksig golden APKs with apksigner's verdicts are not part of this repository: this
 * project's CI has them beside the checkout (`../shared/apksig-golden`), a contributor's clone
 * usually does not. Every test that reads them finds them here, and only here:
 * `APKSIG_GOLDEN_DIR` (absolute, or relative to the repository root) overrides the default.
 * Where the corpus is absent those tests are skipped, each suite saying so on one line;
 * `.ci/run` refuses to run without it, so CI never skips them silently.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export const GOLDEN_ENV = 'APKSIG_GOLDEN_DIR';
const REPO_ROOT = path.resolve(__dirname, '../..');

export const GOLDEN_DIR = path.resolve(
  REPO_ROOT,
  process.env[GOLDEN_ENV] || path.join('..', 'shared', 'apksig-golden'),
);

/** True when the corpus (its verdict table, at least) is where GOLDEN_DIR says. */
export const goldenPresent = existsSync(path.join(GOLDEN_DIR, 'expected.tsv'));

export function goldenPath(name: string): string {
  return path.join(GOLDEN_DIR, name);
}

const announced = new Set<string>();
const relative = (file: string) => path.relative(REPO_ROOT, file);

/** The one line a suite prints when it skips for want of the corpus. */
export function goldenSkipReason(suite: string): string {
  return (
    `skipped ${suite}: apksig golden corpus not found at ${GOLDEN_DIR} ` +
    `(set ${GOLDEN_ENV} to a folder holding expected.tsv and the APKs)`
  );
}

/**
 * `describe` when the corpus is present; otherwise a skipped block of one skipped test, after
 * printing why on one line. `suite` names the test file (pass `__filename`).
 */
export function describeWithGolden(suite: string, title: string, body: () => void): void {
  if (!goldenPresent) {
    if (!announced.has(suite)) process.stderr.write(`${goldenSkipReason(relative(suite))}\n`);
    announced.add(suite);
    // The body is not run: it may read the corpus while collecting its tests.
    describe.skip(title, () => test.skip('needs the apksig golden corpus', () => undefined));
    return;
  }
  describe(title, body);
}
