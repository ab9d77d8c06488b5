/**
 * The package an upload names in the PushLink form's optional `package` field: read from the
 * APK's manifest before sending, so the server records it in the upload's audit entry (the form
 * names no package otherwise) and refuses the APK if it is of another one. A file that cannot be
 * read as an APK names none: judging it is the server's business, not the CLI's.
 */
import { inspectApk } from '../../../shared/apk';

export async function apkPackage(file: string): Promise<string | null> {
  try {
    return (await inspectApk(file)).package;
  } catch {
    return null;
  }
}
