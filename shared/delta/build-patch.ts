/**
 * Makes the bytes of a patch as they are served: the ARDELTA1 records of the format's generator,
 * deflated by zlib (level 9: the patch is made once and downloaded by many). Both files are in
 * memory here: the generator's suffix array needs the whole old file anyway.
 */
import { deflateSync } from 'node:zlib';
import { generatePatch } from '../../device-client/protocol/delta/generate-patch';

export function buildPatch(old: Uint8Array, target: Uint8Array): Buffer {
  const chunks: Uint8Array[] = [];
  generatePatch(old, target, (chunk) => chunks.push(chunk));
  return deflateSync(Buffer.concat(chunks), { level: 9 });
}
