/**
 * Canonical JSON, the one byte string per value that push notices are signed over and exception
 * reports are fingerprinted by: JSON.stringify's text with object keys sorted (by UTF-16 code
 * units) at every level and undefined members left out. The server, the TS client and (through
 * the shared vectors) the Java core all use this one definition.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
