/**
 * The package's own error helpers: shared/apk is a package of its own (package.json beside it) and
 * imports nothing of the server, its error catalogue included. Its errors (ApkFormatError and the
 * issue codes in issues.ts, and the parse errors of each format) reach the server as they are; the
 * server maps them to its stable codes at its edge (uploads/judge-apk.ts, api/).
 */

/** The message of whatever was thrown: an Error's (of any realm), a string, or a description. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error || Object.prototype.toString.call(thrown) === '[object Error]') {
    return (thrown as Error).message;
  }
  return typeof thrown === 'string' ? thrown : `non-Error thrown: ${String(thrown)}`;
}
