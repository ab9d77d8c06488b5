/**
 * The upload pipeline checks signer continuity through the v3 lineage: a rotated APK exposes its
 * certificates oldest first, ending with the signer Android uses, and the oldest one is the
 * signer of the previous release.
 */
import path from 'node:path';
import { inspectApkDetailed } from '../../../shared/apk';

const APKS = path.resolve(__dirname, '../../fixtures/apks');

test('a key-rotated APK exposes its lineage, oldest certificate first', async () => {
  const old = await inspectApkDetailed(path.join(APKS, 'rotated-v3-lineage-old-signer.apk'));
  const rotated = await inspectApkDetailed(path.join(APKS, 'rotated-v3-lineage.apk'));
  expect(old.report.valid).toBe(true);
  expect(rotated.report.valid).toBe(true);
  const oldSigner = old.report.signers[0]?.sha256;
  const newSigner = rotated.report.signers[0]?.sha256;
  expect(rotated.report.signers).toHaveLength(1);
  expect(newSigner).not.toBe(oldSigner);
  expect(rotated.verification?.lineage).toEqual([oldSigner, newSigner]);
  expect(old.verification?.lineage).toEqual([oldSigner]);
});

test('an APK without rotation has a one-certificate lineage', async () => {
  const { report, verification } = await inspectApkDetailed(path.join(APKS, 'signed-v1v2v3.apk'));
  expect(verification?.lineage).toEqual(report.signers.map((s) => s.sha256));
});
