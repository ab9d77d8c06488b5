/**
 * `Content-Disposition: attachment` for a download. PushLink's Flutter download script requires the
 * header to start with exactly `attachment;filename=` (no space, no quotes), so the name comes
 * first as an RFC 6266 token: letters, digits, `.`, `-`, `_` (anything else becomes `_`), which
 * package names already are (spec: `[A-Za-z0-9_.]`). Only when that changed the name does an
 * RFC 6266 `filename*` (RFC 8187: UTF-8, every byte outside `A-Za-z0-9._-` percent-encoded)
 * follow with the real one. Nothing of a name can end the parameter or add one, whatever a stored
 * package name holds. Pure.
 */
export function attachmentDisposition(filename: string): string {
  const token = filename.replace(/[^A-Za-z0-9._-]/g, '_');
  const head = `attachment;filename=${token}`;
  if (token === filename) return head;
  const encoded = Array.from(Buffer.from(filename, 'utf8'), (byte) => {
    const c = String.fromCharCode(byte);
    return /[A-Za-z0-9._-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
  return `${head}; filename*=UTF-8''${encoded}`;
}
