/**
 * What the benches that need an APK on a deployment share: upload it with the CLI's client and
 * make it current, waiting for the verdict (an 18 MB APK's ingest takes seconds on a loaded VM).
 */
import { uploadFile } from '../../cli/upload/upload-file';
import type { Deployment } from '../../dev/deployment';

/** Uploads `file` as the current APK; throws with the server's message when it is refused. */
export async function uploadCurrent(d: Deployment, apiKey: string, file: string): Promise<void> {
  const result = await uploadFile(file, {
    baseUrl: d.adminUrl,
    apiKey,
    tls: { ca: d.ca },
    current: true,
    async: false,
    pollTimeoutMs: 600_000,
    retries: 3,
    maxRetryAfterMs: 10_000,
  });
  if (!result.ok) throw new Error(`upload of ${file} refused: ${result.message}`);
}
