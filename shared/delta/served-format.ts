/**
 * Which patch `/download/delta` serves (docs/delta-updates.md, "Asking for it"): the client says
 * the formats it can apply (`formats=2,1`; absent: `1`, clients built before ARDELTA2), and the
 * smallest ready patch of an accepted format is served. A document without `format` is an
 * ARDELTA1 patch (written before there were two). Pure: the endpoint reads the documents.
 */

/** The patch formats this server knows. */
export const KNOWN_FORMATS: readonly number[] = [1, 2];

/**
 * The accepted formats the server knows, from the `formats` parameter; null when it is malformed
 * or names none the server knows (the endpoint's 400).
 */
export function parseFormats(raw: string | undefined): number[] | null {
  if (raw === undefined) return [1];
  if (!/^[0-9]+(,[0-9]+)*$/.test(raw)) return null;
  const known = raw
    .split(',')
    .map(Number)
    .filter((f) => KNOWN_FORMATS.includes(f));
  return known.length > 0 ? [...new Set(known)] : null;
}

export interface PatchChoice {
  readonly status: string;
  readonly format?: number;
  readonly size: number;
}

export const formatOf = (doc: PatchChoice): number => doc.format ?? 1;

/** The smallest ready patch of an accepted format; null when there is none. */
export function choosePatch<D extends PatchChoice>(
  docs: readonly D[],
  accepted: readonly number[],
) {
  let best: D | null = null;
  for (const doc of docs) {
    if (doc.status !== 'ready' || !accepted.includes(formatOf(doc))) continue;
    if (!best || doc.size < best.size) best = doc;
  }
  return best;
}

/**
 * Whether a pair may still get a patch the client accepts: none of its accepted formats is ready
 * and one of them has no outcome yet (the generation decides ARDELTA2, then ARDELTA1). The
 * endpoint then asks the live job (delta-pending.ts) before saying "not ready yet".
 */
export function awaitsFormat(docs: readonly PatchChoice[], accepted: readonly number[]): boolean {
  if (choosePatch(docs, accepted)) return false;
  return accepted.some((f) => !docs.some((d) => formatOf(d) === f));
}
