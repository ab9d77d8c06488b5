/**
 * The download settings of loadConfig (shared/config.ts): the memory of decrypted current APKs
 * (DOWNLOAD_MEMORY_MB) and the nginx offload mode (DOWNLOAD_OFFLOAD, DOWNLOAD_OFFLOAD_DIR); see
 * docs/downloads.md.
 */
import path from 'node:path';
import type { Reader } from './config-reader';

/** Where download bytes come from: the API itself, or nginx from a RAM-backed directory. */
export type DownloadOffload =
  { readonly mode: 'off' } | { readonly mode: 'nginx'; readonly dir: string };

export function downloadSettings(r: Reader): {
  downloadMemoryMiB: number;
  downloadOffload: DownloadOffload;
} {
  const downloadMemoryMiB = r.integer('DOWNLOAD_MEMORY_MB', 512, 0, 1024 * 1024);
  const mode = r.oneOf('DOWNLOAD_OFFLOAD', ['off', 'nginx'], 'off');
  const dir = r.raw('DOWNLOAD_OFFLOAD_DIR');
  if (mode === 'off') return { downloadMemoryMiB, downloadOffload: { mode } };
  if (dir === undefined) {
    r.problems.push(
      'DOWNLOAD_OFFLOAD=nginx needs DOWNLOAD_OFFLOAD_DIR (an absolute path on a RAM-backed file system)',
    );
  } else if (!path.isAbsolute(dir)) {
    r.problems.push(`DOWNLOAD_OFFLOAD_DIR must be an absolute path (got "${dir}")`);
  } else {
    return { downloadMemoryMiB, downloadOffload: { mode, dir } };
  }
  return { downloadMemoryMiB, downloadOffload: { mode: 'off' } };
}
