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
