/**
 * The demo app's two signed APKs (device-client/android/demo: package dev.apkrelay.demo,
 * versionCode 1 and 2, the Android library inside), built by the Android build
 * (`device-client/android/build.sh`, which `.ci/run` runs before `npm test`) into
 * `device-client/android/target/demo/`. They are not committed: each build signs them with a
 * throwaway key. Where they are absent (the Android build was not run), the tests that use them
 * are skipped, each suite saying so on one line.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '../..');
export const DEMO_DIR = path.join(REPO_ROOT, 'device-client/android/target/demo');
export const DEMO_PACKAGE = 'dev.apkrelay.demo';

export function demoApk(versionCode: 1 | 2): string {
  return path.join(DEMO_DIR, `apkrelay-demo-${versionCode}.apk`);
}

export const demoPresent = existsSync(demoApk(1)) && existsSync(demoApk(2));

/** `describe` when both demo APKs exist; otherwise one skipped test, after a line saying why. */
export function describeWithDemoApks(suite: string, title: string, body: () => void): void {
  if (demoPresent) {
    describe(title, body);
    return;
  }
  process.stderr.write(
    `skipped ${path.relative(REPO_ROOT, suite)}: the demo APKs are not in ` +
      `${path.relative(REPO_ROOT, DEMO_DIR)} (run device-client/android/build.sh first)\n`,
  );
  describe.skip(title, () => test.skip('needs the demo APKs', () => undefined));
}
