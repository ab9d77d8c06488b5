/**
 * Android resolves manifest attributes by resource ID, not by name. The fixture
 * renamed-attrs.apk has its attribute-name strings altered (versionCodx, minSdkVersiom,
 * testOnlx) with the resource map intact; inspect must read it as Android does.
 */
import path from 'node:path';
import { inspectApk } from '../../../shared/apk';

const FIXTURE = path.resolve(__dirname, '../../fixtures/apks/renamed-attrs.apk');

test('an APK whose manifest attribute names were renamed is still read by resource ID', async () => {
  const report = await inspectApk(FIXTURE, 'renamed-attrs.apk');
  expect(report).toMatchObject({
    valid: true,
    package: 'dev.apkrelay.fixture',
    versionCode: 7,
    minSdk: 24,
    testOnly: true,
    schemes: { v2: true, v3: true },
  });
  expect(report.errors).toEqual([]);
});
