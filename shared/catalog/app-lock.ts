/**
 * Every write of an app document runs under the app's lock (shared/storage/doc-lock.ts): the
 * current APK's pointer, the version counter, the label and the signer are written by different
 * paths (an upload made current, a rollout's change, another upload's label), and on the default
 * store two updates of one document at once can undo each other, whatever their filters: a label
 * written beside a move could put the previous APK back as current.
 */
import type { Db, ObjectId } from 'mongodb';
import { withDocLock } from '../storage/doc-lock';

export function underAppLock<T>(db: Db, appId: ObjectId, write: () => Promise<T>): Promise<T> {
  return withDocLock(db, `app:${appId.toHexString()}`, write);
}
