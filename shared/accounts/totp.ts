/**
 * TOTP second factor (RFC 6238 as authenticator apps do it: HMAC-SHA-1, 6 digits, 30 s steps),
 * through the `otpauth` package. Pure: a code is accepted for the current step or the one either
 * side (clock drift), and never for a step at or before the last one accepted (no replay).
 */
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
export const TOTP_WINDOW = 1;

function totpOf(secretBase32: string, digits = TOTP_DIGITS, label = 'apkrelay'): TOTP {
  return new TOTP({
    issuer: 'apkrelay',
    label,
    algorithm: 'SHA1',
    digits,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new random seed (160 bits, RFC 4226's recommendation), in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URI an authenticator app reads (from its QR code). */
export function totpUri(secretBase32: string, email: string): string {
  return totpOf(secretBase32, TOTP_DIGITS, email).toString();
}

/** The code of `secret` at `timestampMs` (`digits`: 6, or 8 for RFC 6238's test vectors). */
export function totpCode(secretBase32: string, timestampMs: number, digits = TOTP_DIGITS): string {
  return totpOf(secretBase32, digits).generate({ timestamp: timestampMs });
}

/** The 30-second step a time falls in. */
export function totpStep(timestampMs: number): number {
  return Math.floor(timestampMs / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * The step `code` is valid for, within the window around `nowMs` and after `lastStep` (the last
 * step accepted for this seed); null when it is not (wrong, too old, or already used).
 */
export function acceptedStep(
  secretBase32: string,
  code: string,
  nowMs: number,
  lastStep: number | null,
): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^[0-9]{6}$/.test(token)) return null;
  const delta = totpOf(secretBase32).validate({ token, timestamp: nowMs, window: TOTP_WINDOW });
  if (delta === null) return null;
  const step = totpStep(nowMs) + delta;
  return lastStep !== null && step <= lastStep ? null : step;
}
