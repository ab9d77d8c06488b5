/** Which APK of an app a request names (making one current, a download link, a web page). */
import { AppError } from '../errors';
import type { ApkDoc } from './types';

/** The APK named by `{sha256}`, `{md5}` or `{versionCode}` (which must then be unambiguous). */
export function pickApk(apks: readonly ApkDoc[], body: Record<string, unknown>): ApkDoc {
  const { sha256, md5, versionCode } = body;
  let matches: ApkDoc[];
  if (typeof sha256 === 'string') matches = apks.filter((a) => a.sha256 === sha256.toLowerCase());
  else if (typeof md5 === 'string') matches = apks.filter((a) => a.md5 === md5.toLowerCase());
  else if (typeof versionCode === 'number')
    matches = apks.filter((a) => a.versionCode === versionCode);
  else
    throw new AppError('VALIDATION_FAILED', {
      message: 'name the APK by sha256, md5 or versionCode',
    });
  if (matches.length > 1) {
    throw new AppError('VALIDATION_FAILED', {
      message: `several APKs have versionCode ${String(versionCode)}; name one by sha256`,
    });
  }
  const apk = matches[0];
  if (!apk) throw new AppError('NOT_FOUND', { message: 'no such APK in this app' });
  return apk;
}
