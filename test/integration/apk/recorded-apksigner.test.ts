/**
 * The fixtures' verdicts and signers as apksigner recorded them when test/fixtures/make-apks.sh
 * built them (apks/expected.tsv: the exit status of `apksigner verify`; keys/certs.tsv: each key's
 * certificate SHA-256, as `apksigner verify --print-certs` shows it). The inspector must agree
 * with those records, not with itself; this holds where apksigner is not installed too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inspectApk, inspectApkDetailed } from '../../../shared/apk';

const FIXTURES = path.resolve(__dirname, '../../fixtures');

function tsv(file: string): string[][] {
  return readFileSync(path.join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split('\t'));
}

const verdicts = tsv('apks/expected.tsv').map(([file, verdict]) => [file!, verdict!] as const);
const certs = new Map(tsv('keys/certs.tsv').map(([key, sha256]) => [key!, sha256!]));

/** Which key signed each accepted fixture (make-apks.sh's build lines, written out by hand). */
const SIGNED_BY: Record<string, string> = {
  'bad-package-name.apk': 'fixture',
  'debuggable.apk': 'fixture',
  'large.apk': 'fixture',
  'other-package.apk': 'fixture',
  'renamed-attrs.apk': 'fixture',
  'rotated-v3-lineage-old-signer.apk': 'rotation-old',
  'rotated-v3-lineage.apk': 'rotation-new',
  'second-signer.apk': 'second',
  'signed-v1-only.apk': 'fixture',
  'signed-v1v2v3.apk': 'fixture',
  'signed-v2-only.apk': 'fixture',
  'signed-v3-only.apk': 'fixture',
  'test-only.apk': 'fixture',
  'version-1.apk': 'fixture',
  'version-2.apk': 'fixture',
  'version-3.apk': 'fixture',
};

test('the records cover the fixtures and the four keys', () => {
  expect(verdicts.length).toBe(23);
  expect([...certs.keys()].sort()).toEqual(['fixture', 'rotation-new', 'rotation-old', 'second']);
  for (const sha of certs.values()) expect(sha).toMatch(/^[0-9a-f]{64}$/);
  const accepted = verdicts.filter(([, v]) => v === 'ACCEPT').map(([f]) => f);
  expect(accepted.sort()).toEqual(Object.keys(SIGNED_BY).sort());
});

test.each(verdicts)('%s: inspect gives apksigner’s recorded verdict %s', async (file, verdict) => {
  const report = await inspectApk(path.join(FIXTURES, 'apks', file), file);
  expect(report.valid ? 'ACCEPT' : 'REJECT').toBe(verdict);
});

test.each(Object.entries(SIGNED_BY))('%s is signed by the %s key', async (file, key) => {
  const report = await inspectApk(path.join(FIXTURES, 'apks', file), file);
  expect(report.signers.map((s) => s.sha256)).toEqual([certs.get(key)]);
});

test('the rotated APK’s lineage runs from the old key to the new one', async () => {
  const rotated = await inspectApkDetailed(path.join(FIXTURES, 'apks/rotated-v3-lineage.apk'));
  expect(rotated.verification?.lineage).toEqual([
    certs.get('rotation-old'),
    certs.get('rotation-new'),
  ]);
});
