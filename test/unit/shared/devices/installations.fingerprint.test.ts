/**
 * `registrationFingerprint`: equal exactly when a registration would write the same fields into
 * the installation's document (everything but the times), so a resubscribe may skip the database
 * only when nothing it reports changed. Inputs written out by hand.
 */
import { registrationFingerprint } from '../../../../shared/devices/installations';
import type { RegistrationInput } from '../../../../shared/devices/registration-input';

const base: RegistrationInput = {
  package: 'dev.example.app',
  deviceId: 'device-1',
  installedMd5: '0123456789abcdef0123456789abcdef',
  lastDownloadedMd5: null,
  strategy: 'STATUS_BAR',
  device: { brand: 'google', model: 'Pixel 3a', osVersion: '11', sdkInt: null },
  metadata: [
    { key: 'store', value: '1' },
    { key: 'lane', value: '7' },
  ],
  location: null,
  channel: 'pushlink',
  plVersion: '5.6.0',
};

test('the same fields, written out again, give the same fingerprint', () => {
  const copy: RegistrationInput = {
    ...base,
    device: { brand: 'google', model: 'Pixel 3a', osVersion: '11', sdkInt: null },
    metadata: [
      { key: 'store', value: '1' },
      { key: 'lane', value: '7' },
    ],
  };
  expect(registrationFingerprint(copy)).toBe(registrationFingerprint(base));
});

// Each row changes one field a registration writes: the document would differ.
const changed: Array<[string, Partial<RegistrationInput>]> = [
  ['installed MD5', { installedMd5: 'fedcba9876543210fedcba9876543210' }],
  ['installed MD5 absent', { installedMd5: null }],
  ['last download', { lastDownloadedMd5: '0123456789abcdef0123456789abcdef' }],
  ['strategy', { strategy: 'FRIENDLY_POPUP' }],
  ['brand', { device: { brand: 'samsung', model: 'Pixel 3a', osVersion: '11', sdkInt: null } }],
  ['model', { device: { brand: 'google', model: 'Pixel 4', osVersion: '11', sdkInt: null } }],
  ['OS version', { device: { brand: 'google', model: 'Pixel 3a', osVersion: '12', sdkInt: null } }],
  ['SDK int', { device: { brand: 'google', model: 'Pixel 3a', osVersion: '11', sdkInt: 30 } }],
  ['no device fields', { device: null }],
  [
    'a metadata value',
    {
      metadata: [
        { key: 'store', value: '2' },
        { key: 'lane', value: '7' },
      ],
    },
  ],
  [
    'metadata order',
    {
      metadata: [
        { key: 'lane', value: '7' },
        { key: 'store', value: '1' },
      ],
    },
  ],
  ['metadata absent', { metadata: null }],
  ['metadata empty', { metadata: [] }],
  ['location', { location: { lat: 48.1, lon: 11.5 } }],
  ['channel', { channel: 'sse' }],
  ['SDK version', { plVersion: '5.0.3' }],
];

test.each(changed)('a changed %s changes the fingerprint', (_what, change) => {
  expect(registrationFingerprint({ ...base, ...change })).not.toBe(registrationFingerprint(base));
});

test('values that would read alike when joined still differ', () => {
  const a = { ...base, metadata: [{ key: 'a,b', value: 'c' }] };
  const b = { ...base, metadata: [{ key: 'a', value: 'b,c' }] };
  expect(registrationFingerprint(a)).not.toBe(registrationFingerprint(b));
});
