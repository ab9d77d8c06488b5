/**
 * The package `apkrelay upload` names in the form (ops/cli/upload/apk-package.ts), read from the
 * APK itself; expected names from test/fixtures/apks/expected.tsv (the manifests aapt built).
 */
import path from 'node:path';
import { apkPackage } from '../../../../../ops/cli/upload/apk-package';

const apks = path.resolve(__dirname, '../../../../fixtures/apks');

test('the package of an APK, from its manifest', async () => {
  expect(await apkPackage(path.join(apks, 'version-1.apk'))).toBe('dev.apkrelay.sample');
  expect(await apkPackage(path.join(apks, 'other-package.apk'))).toBe('dev.apkrelay.other');
});

test('a file that is not an APK names none: the server judges it', async () => {
  expect(await apkPackage(path.join(apks, 'not-a-zip.apk'))).toBeNull();
  expect(await apkPackage(path.join(apks, 'missing.apk'))).toBeNull();
});
