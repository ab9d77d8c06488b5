/**
 * The main acceptance test: every APK of AOSP apksig's test corpus (a copy kept outside the repo,
 * see ../shared/apksig-golden/README.md) must get the verdict listed in expected.tsv.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inspectApk } from '../../../shared/apk';

const GOLDEN_DIR = path.resolve(__dirname, '../../../..', 'shared/apksig-golden');
const present = existsSync(path.join(GOLDEN_DIR, 'expected.tsv'));

function expectations(): Array<[string, 'ACCEPT' | 'REJECT']> {
  return readFileSync(path.join(GOLDEN_DIR, 'expected.tsv'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [file, verdict] = line.split('\t');
      if (file === undefined || (verdict !== 'ACCEPT' && verdict !== 'REJECT')) {
        throw new Error(`bad expected.tsv line: ${line}`);
      }
      return [file, verdict];
    });
}

if (!present) {
  console.warn(`apksig golden corpus not found at ${GOLDEN_DIR}; golden verdict tests skipped`);
}

(present ? describe : describe.skip)('apksig golden APKs', () => {
  const rows = present ? expectations() : [];

  test('the corpus lists the APKs it ships', () => {
    expect(rows.length).toBeGreaterThanOrEqual(180);
  });

  test.each(rows)('%s → %s', async (file, verdict) => {
    const report = await inspectApk(path.join(GOLDEN_DIR, file), file);
    const got = report.valid ? 'ACCEPT' : 'REJECT';
    expect({
      file,
      verdict: got,
      errors: report.valid ? [] : report.errors.map((e) => e.code),
    }).toMatchObject({
      file,
      verdict,
    });
    if (report.valid) {
      expect(report.signers.length).toBeGreaterThan(0);
      expect(report.signers[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    } else {
      expect(report.errors.length).toBeGreaterThan(0);
    }
  });
});
