/**
 * TOTP (shared/accounts/totp.ts) against RFC 6238's test vectors (Appendix B, the SHA-1 rows:
 * seed "12345678901234567890", 8 digits) and hand-written cases of the window and of replay.
 */
import { acceptedStep, totpCode, totpStep } from '../../../../shared/accounts/totp';

/** The ASCII seed "12345678901234567890" in base32 (RFC 4648). */
const RFC_SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

// RFC 6238, Appendix B: time (s), T (hex step), TOTP (SHA-1, 8 digits).
const VECTORS: ReadonlyArray<readonly [number, number, string]> = [
  [59, 0x1, '94287082'],
  [1111111109, 0x23523ec, '07081804'],
  [1111111111, 0x23523ed, '14050471'],
  [1234567890, 0x273ef07, '89005924'],
  [2000000000, 0x3f940aa, '69279037'],
  [20000000000, 0x27bc86aa, '65353130'],
];

test.each(VECTORS)('RFC 6238 at %i s: step %i, code %s', (seconds, step, code) => {
  expect(totpStep(seconds * 1000)).toBe(step);
  expect(totpCode(RFC_SEED, seconds * 1000, 8)).toBe(code);
  // Six digits are the last six of eight (the code is the truncated value mod 10^digits).
  expect(totpCode(RFC_SEED, seconds * 1000)).toBe(code.slice(2));
});

// Written by hand: [what, code, now (s), last step accepted, the step accepted or null].
const S = (seconds: number) => seconds * 1000;
const CASES: ReadonlyArray<readonly [string, string, number, number | null, number | null]> = [
  ['the current step', '287082', 59, null, 1],
  ['the previous step (clock behind)', '287082', 89, null, 1],
  ['two steps back: refused', '287082', 119, null, null],
  ['the next step (clock ahead)', '287082', 29, null, 1],
  ['two steps ahead: refused', '050471', 1111111051, null, null],
  ['one step ahead', '050471', 1111111081, null, 37037037],
  ['spaces are ignored', '287 082', 59, null, 1],
  ['a code already used (same step): refused', '287082', 59, 1, null],
  ['a step before the last accepted: refused', '287082', 89, 2, null],
  ['after an older step was accepted', '287082', 59, 0, 1],
  ['a wrong code', '287083', 59, null, null],
  ['five digits', '87082', 59, null, null],
  ['letters', 'abcdef', 59, null, null],
  ['eight digits', '94287082', 59, null, null],
  ['another vector, its step', '050471', 1111111111, 37037036, 37037037],
];

test.each(CASES)('%s', (_what, code, seconds, lastStep, expected) => {
  expect(acceptedStep(RFC_SEED, code, S(seconds), lastStep)).toBe(expected);
});
