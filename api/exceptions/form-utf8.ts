/** The PushLink exception form's encoding check (before parsing it). */
import { isUtf8 } from 'node:buffer';

/**
 * The form's bytes, and the bytes its percent-escapes stand for, are UTF-8. (URLSearchParams
 * would turn anything else into U+FFFD, and the report would be stored with its bytes lost.) A
 * `%` that starts no escape is taken literally, as URLSearchParams does.
 */
export function formIsUtf8(body: Buffer): boolean {
  if (!isUtf8(body)) return false;
  for (const part of body.toString('utf8').split(/[&=]/)) {
    if (!part.includes('%')) continue;
    try {
      decodeURIComponent(part.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
    } catch {
      return false;
    }
  }
  return true;
}
