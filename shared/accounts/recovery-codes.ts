/**
 * Second-factor recovery codes (issue 31, docs/teams.md): 10 codes made when the factor is turned
 * on, shown once, each 80 random bits written as four groups of four base32 letters and digits
 * (`abcd-efgh-ijkm-npqr`). Only their SHA-256 is stored, with the factor; a code signs in once, in
 * place of an authenticator code, and is then gone. Pure: the storage is in totp-factors.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // 32 symbols: no l, o, 0, 1
const SHAPE = /^[a-z2-9]{4}(-?[a-z2-9]{4}){3}$/;

/** One new code: 16 symbols of 5 bits each, in groups of four. */
function newCode(): string {
  const bytes = randomBytes(16);
  const symbols = [...bytes].map((b) => ALPHABET[b & 31]!);
  return [0, 4, 8, 12].map((i) => symbols.slice(i, i + 4).join('')).join('-');
}

/** A fresh set of codes, distinct. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(newCode());
  return [...codes];
}

/** The typed text as a code (case, spaces and the dashes are forgiven), or null when it is none. */
export function recoveryCodeOf(typed: string): string | null {
  const compact = typed.trim().toLowerCase().replace(/\s+/g, '');
  if (!SHAPE.test(compact)) return null;
  const plain = compact.replace(/-/g, '');
  return [0, 4, 8, 12].map((i) => plain.slice(i, i + 4)).join('-');
}

/** What is stored of a code: the SHA-256 of its canonical form, hex. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
