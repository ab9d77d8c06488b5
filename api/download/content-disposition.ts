/**
 * `Content-Disposition: attachment` for a download, as RFC 6266 section 4.3 recommends: a quoted
 * `filename` that every client reads (only letters, digits, `.`, `-`, `_`; anything else becomes
 * `_`) and a `filename*` (RFC 8187: UTF-8, every byte outside attr-char's letters, digits and
 * `.-_` percent-encoded) that modern clients prefer. Nothing of the name can end the parameter or
 * add one, whatever a stored package name holds. Pure.
 */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.replace(/[^A-Za-z0-9._-]/g, '_');
  const encoded = Array.from(Buffer.from(filename, 'utf8'), (byte) => {
    const c = String.fromCharCode(byte);
    return /[A-Za-z0-9._-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
