/**
 * The `Range` header of an APK download, as resuming PushLink clients send it (`bytes=N-`,
 * `bytes=N-M`). Pure. Legacy clients append whatever comes back, so the answers are exact:
 * a start equal to the size is an empty success (a 416 would make them retry the same range
 * forever); several ranges are refused rather than answered with the whole file.
 */
export type RangeDecision =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'empty' }
  | { readonly kind: 'unsatisfiable' };

export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined || header.trim() === '') return { kind: 'full' };
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  // An unknown unit is ignored, as RFC 9110 allows.
  if (!match) return { kind: 'full' };
  const specs = match[1]!.split(',').map((s) => s.trim());
  if (specs.length !== 1) return { kind: 'unsatisfiable' };
  const spec = /^(\d*)-(\d*)$/.exec(specs[0]!);
  if (!spec || (spec[1] === '' && spec[2] === '')) return { kind: 'unsatisfiable' };
  if (spec[1] === '') {
    // Suffix range: the last N bytes.
    const suffix = Number(spec[2]);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    if (size === 0) return { kind: 'empty' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(spec[1]);
  if (!Number.isSafeInteger(start)) return { kind: 'unsatisfiable' };
  if (start === size) return { kind: 'empty' };
  if (start > size) return { kind: 'unsatisfiable' };
  const end = spec[2] === '' ? size - 1 : Math.min(Number(spec[2]), size - 1);
  if (!Number.isSafeInteger(end) || end < start) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}
