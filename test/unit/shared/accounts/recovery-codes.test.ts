/** Recovery codes (issue 31): their shape, the forgiving reading of a typed code, the stored hash. */
import {
  hashRecoveryCode,
  newRecoveryCodes,
  recoveryCodeOf,
} from '../../../../shared/accounts/recovery-codes';

test('ten distinct codes of four groups of four symbols, without l, o, 0 or 1', () => {
  const codes = newRecoveryCodes();
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  for (const code of codes) expect(code).toMatch(/^[a-km-np-z2-9]{4}(-[a-km-np-z2-9]{4}){3}$/);
});

test.each([
  ['abcd-efgh-ijkm-npqr', 'abcd-efgh-ijkm-npqr'],
  [' ABCD-EFGH-IJKM-NPQR ', 'abcd-efgh-ijkm-npqr'],
  ['abcdefghijkmnpqr', 'abcd-efgh-ijkm-npqr'],
  ['abcd efgh ijkm npqr', 'abcd-efgh-ijkm-npqr'],
  ['123456', null],
  ['abcd-efgh-ijkm', null],
  ['abcd-efgh-ijkm-npq1', null],
  ['abcd-efgh-ijkm-npqr-stuv', null],
  ['', null],
])('recoveryCodeOf(%j) is %j', (typed, expected) => {
  expect(recoveryCodeOf(typed)).toBe(expected);
});

test('the stored form is the SHA-256 of the canonical code', () => {
  // sha256("abcd-efgh-ijkm-npqr"), computed with `printf %s abcd-efgh-ijkm-npqr | sha256sum`.
  expect(hashRecoveryCode('abcd-efgh-ijkm-npqr')).toBe(
    '19e42c85f4816c940571fa5a7d4bb17fc3e9996951380a0834457caa7c6ffce2',
  );
});
