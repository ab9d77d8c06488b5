/**
 * Whether a stored APK blob is still served to devices: the current APK of its app, or the APK of
 * its app's rollout (the same selection as downloads and the push hub, shared/rollouts/targets.ts).
 * The nginx offload directory keeps only such files (offload-dir.ts).
 */
import { ObjectId, type Db } from 'mongodb';
import { catalogCollections } from '../../shared/catalog/collections';
import { apkById } from '../../shared/catalog/queries';
import { loadTargets } from '../../shared/rollouts/targets';

export async function isBlobServed(db: Db, blobId: string): Promise<boolean> {
  const { apks, apps } = catalogCollections(db);
  const apk = await apks.findOne({ blobId });
  const app = apk ? await apps.findOne({ _id: apk.appId }) : null;
  if (!apk || !app) return false;
  const loaded = await loadTargets(db, app, (id) => apkById(db, app.accountId, new ObjectId(id)));
  return loaded.docs.has(apk._id.toHexString());
}
