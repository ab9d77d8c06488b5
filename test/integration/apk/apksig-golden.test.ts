/**
 * The main acceptance test: every APK of AOSP apksig's test corpus (a copy kept outside the repo,
 * found by test/helpers/golden-corpus.ts; its README.md says where it comes from) must get the verdict listed in expected.tsv.
 */
import { readFileSync } from 'node:fs';
import { inspectApk } from '../../../shared/apk';
import { describeWithGolden, goldenPath, goldenPresent } from '../../helpers/golden-corpus';

function expectations(): Array<[string, 'ACCEPT' | 'REJECT']> {
  return readFileSync(goldenPath('expected.tsv'), 'utf8')
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

describeWithGolden(__filename, 'apksig golden APKs', () => {
  const rows = goldenPresent ? expectations() : [];

  test('the corpus lists the APKs it ships', () => {
    expect(rows.length).toBeGreaterThanOrEqual(180);
  });

  test.each(rows)('%s → %s', async (file, verdict) => {
    const report = await inspectApk(goldenPath(file), file);
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
