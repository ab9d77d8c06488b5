/**
 * The error classes outside shared/errors.ts are AppErrors of the catalogue, each with a stable
 * code, and keep the texts they had (issue 34). Codes and texts written by hand.
 */
import { BackupAuthError } from '../../../shared/backup/envelope';
import { ConfigError } from '../../../shared/config';
import { SegmentAuthError } from '../../../shared/crypto/segmented-aead';
import { AppError } from '../../../shared/errors';
import { ReportInvalid } from '../../../shared/exceptions/report';

test.each([
  ['ReportInvalid', new ReportInvalid(['a', 'b']), 'EXCEPTION_REPORT_INVALID', 400, 'a; b'],
  [
    'ConfigError',
    new ConfigError(['PORT x']),
    'CONFIG_INVALID',
    500,
    'Invalid configuration:\n  - PORT x',
  ],
  [
    'SegmentAuthError',
    new SegmentAuthError(3),
    'STORED_DATA_UNAUTHENTIC',
    500,
    'encrypted segment 3 failed authentication (tampered, truncated or wrong key)',
  ],
  [
    'BackupAuthError',
    new BackupAuthError('bad tag'),
    'STORED_DATA_UNAUTHENTIC',
    500,
    'backup archive failed authentication: bad tag (tampered, damaged, or written under another ' +
      'MASTER_KEY); nothing was restored',
  ],
])('%s is an AppError of the catalogue', (name, err, code, status, message) => {
  expect(err).toBeInstanceOf(AppError);
  expect([err.name, err.code, err.status, err.message]).toEqual([name, code, status, message]);
});
