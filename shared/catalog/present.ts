/** Public JSON shapes of catalogue records (no key material, no internal ids beyond `id`). */
import type { ApkDoc } from './types';

export function presentApk(apk: ApkDoc) {
  return {
    id: apk._id.toHexString(),
    package: apk.package,
    versionCode: apk.versionCode,
    versionName: apk.versionName,
    minSdk: apk.minSdk,
    targetSdk: apk.targetSdk,
    md5: apk.md5,
    sha256: apk.sha256,
    size: apk.size,
    signerSha256: apk.signerSha256,
    debuggable: apk.debuggable,
    whatsnew: apk.whatsnew,
    uploadedAt: apk.uploadedAt.toISOString(),
  };
}
