/**
 * `lastInstall.download` (docs/delta-updates.md): accepted as the contract words it, absent from
 * old clients, and every malformed shape refused with VALIDATION_FAILED naming the field.
 */
import { parseInstallOutcome } from '../../../../shared/devices/install-outcome';

const base = { md5: 'a'.repeat(32), versionCode: 2, status: 'success' };

test('absent: null (old clients)', () => {
  expect(parseInstallOutcome(base)?.download).toBeNull();
});

test('a delta, a full download and a fallback are kept as sent', () => {
  expect(
    parseInstallOutcome({ ...base, download: { via: 'delta', bytes: 1234, fallback: null } })
      ?.download,
  ).toEqual({ via: 'delta', bytes: 1234, fallback: null });
  expect(parseInstallOutcome({ ...base, download: { via: 'full', bytes: 0 } })?.download).toEqual({
    via: 'full',
    bytes: 0,
    fallback: null,
  });
  const fallback = { reason: 'patch-failed', message: 'the patch ends inside a record' };
  expect(
    parseInstallOutcome({ ...base, download: { via: 'full', bytes: 99, fallback } })?.download,
  ).toEqual({ via: 'full', bytes: 99, fallback });
});

test.each([
  ['not an object', 'yes', 'lastInstall.download must be an object'],
  ['via unknown', { via: 'bsdiff', bytes: 1 }, 'lastInstall.download.via must be delta or full'],
  [
    'bytes negative',
    { via: 'full', bytes: -1 },
    'lastInstall.download.bytes must be a non-negative integer',
  ],
  [
    'bytes fractional',
    { via: 'full', bytes: 1.5 },
    'lastInstall.download.bytes must be a non-negative integer',
  ],
  [
    'bytes a string',
    { via: 'full', bytes: '10' },
    'lastInstall.download.bytes must be a non-negative integer',
  ],
  [
    'reason unknown',
    { via: 'full', bytes: 1, fallback: { reason: 'disk', message: '' } },
    'lastInstall.download.fallback.reason must be one of no-patch, patch-failed, no-space, mismatch, network',
  ],
  [
    'message too long',
    { via: 'full', bytes: 1, fallback: { reason: 'network', message: 'x'.repeat(301) } },
    'lastInstall.download.fallback.message must be a string of at most 300 characters',
  ],
  [
    'fallback on a delta',
    { via: 'delta', bytes: 1, fallback: { reason: 'network', message: 'm' } },
    'lastInstall.download.fallback is only for a full download',
  ],
])('%s: refused', (_name, download, message) => {
  let refusal: unknown = null;
  try {
    parseInstallOutcome({ ...base, download });
  } catch (err) {
    refusal = err;
  }
  expect(refusal).toMatchObject({ code: 'VALIDATION_FAILED', message });
});
