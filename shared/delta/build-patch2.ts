/**
 * Makes the bytes of an ARDELTA2 patch as they are served: the entries read from both APKs
 * (apk-entries.ts), the ranges chosen (choose-ranges.ts), the plan and records of the format's
 * generator, deflated by zlib at level 9 like ARDELTA1. No ARDELTA2 can be made for the pair when
 * an archive is ZIP64 or malformed (null) or no changed deflated entry is reproduced (a null
 * `patch`, with the counts): ARDELTA1 serves it.
 */
import { deflateSync } from 'node:zlib';
import { generatePatch2 } from '../../device-client/protocol/delta/generate-patch2';
import { readApkEntries } from './apk-entries';
import { chooseRanges } from './choose-ranges';

export interface Patch2 {
  /** Null when no changed deflated entry is reproduced: ARDELTA1 serves the pair. */
  readonly patch: Buffer | null;
  /** Deflated entries of the new APK that changed, and how many went file by file. */
  readonly changed: number;
  readonly reproduced: number;
}

export async function buildPatch2(old: Uint8Array, target: Uint8Array): Promise<Patch2 | null> {
  const [oldEntries, newEntries] = await Promise.all([readApkEntries(old), readApkEntries(target)]);
  if (oldEntries === null || newEntries === null) return null;
  const choice = chooseRanges(
    { bytes: old, entries: oldEntries },
    { bytes: target, entries: newEntries },
  );
  const counts = { changed: choice.changed, reproduced: choice.reproduced };
  if (choice.new.length === 0) return { patch: null, ...counts };
  const chunks: Uint8Array[] = [];
  generatePatch2(old, target, choice, (chunk) => chunks.push(chunk));
  const patch = deflateSync(Buffer.concat(chunks), { level: 9 });
  return { patch, ...counts };
}
