/**
 * Package names at ingest. The table is Android's documented rule for the manifest `package`
 * (developer.android.com, <manifest> element): at least two segments separated by dots, each
 * starting with an ASCII letter and made of ASCII letters, digits and underscores; plus the
 * platform's length cap of 223 characters (a package name is also a directory name on the device).
 */
import type { InspectReport } from '../../../../shared/apk/inspect-apk';
import { judgeApk } from '../../../../shared/uploads/judge-apk';

function report(pkg: string): InspectReport {
  return {
    file: 'x.apk',
    valid: true,
    package: pkg,
    versionCode: 1,
    versionName: '1.0',
    minSdk: 24,
    targetSdk: 34,
    testOnly: false,
    debuggable: false,
    label: null,
    schemes: { v1: false, v2: true, v3: true, v31: false },
    signers: [{ sha256: 'a'.repeat(64) }],
    md5: 'b'.repeat(32),
    sha256: 'c'.repeat(64),
    size: 1000,
    errors: [],
  };
}

const ACCEPTED = [
  'dev.apkrelay.sample',
  'a.b',
  'A.B',
  'com.example_app',
  'com.Ex4mple.a_1',
  'a.b.c.d.e.f',
  `a.${'b'.repeat(221)}`, // 223 characters
];

const REFUSED = [
  "evil.pkg;filename*=UTF-8''evil.html;x=",
  'com',
  '',
  '.com.example',
  'com.example.',
  'com..example',
  '1com.example',
  'com.1example',
  '_com.example',
  'com._example',
  'com.ex-ample',
  'com.ex ample',
  'com.exämple',
  'com.example/../x',
  'com.example?x=1',
  'com.example#x',
  'com.example"x',
  'com.example<x>',
  `a.${'b'.repeat(222)}`, // 224 characters
];

test.each(ACCEPTED)('package %j is accepted', (pkg) => {
  const judged = judgeApk(report(pkg), null);
  expect(judged.ok).toBe(true);
});

test.each(REFUSED)('package %j is refused as APK_PACKAGE_NAME_INVALID', (pkg) => {
  const judged = judgeApk(report(pkg), null);
  expect(judged.ok ? null : judged.verdict).toMatchObject({
    status: 'rejected',
    code: 'APK_PACKAGE_NAME_INVALID',
  });
});

test('a bad package is refused even when the request path names the same string', () => {
  const bad = "evil.pkg;filename*=UTF-8''evil.html;x=";
  const judged = judgeApk(report(bad), bad);
  expect(judged.ok ? null : judged.verdict).toMatchObject({ code: 'APK_PACKAGE_NAME_INVALID' });
});
