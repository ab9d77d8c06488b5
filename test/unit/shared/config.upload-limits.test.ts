import { ConfigError, loadConfig } from '../../../shared/config';
import { DEFAULT_UPLOAD_LIMITS } from '../../../shared/uploads/upload-limits';

test('upload limits: defaults', () => {
  expect(loadConfig({}).uploads).toEqual(DEFAULT_UPLOAD_LIMITS);
  expect(DEFAULT_UPLOAD_LIMITS).toMatchObject({
    preAuthBytes: 256 * 1024,
    spoolBytes: 4 * 1024 ** 3,
    progressBytes: 32 * 1024,
    progressWindowMs: 30_000,
    perAddress: 64,
    total: 128,
  });
});

test('UPLOADS_PER_ADDRESS and UPLOADS_TOTAL are read', () => {
  const { uploads } = loadConfig({ UPLOADS_PER_ADDRESS: '4', UPLOADS_TOTAL: '10' });
  expect([uploads.perAddress, uploads.total]).toEqual([4, 10]);
});

test('UPLOAD_PROGRESS_BYTES and UPLOAD_PROGRESS_WINDOW_MS are read', () => {
  const { uploads } = loadConfig({
    UPLOAD_PROGRESS_BYTES: '1024',
    UPLOAD_PROGRESS_WINDOW_MS: '500',
  });
  expect([uploads.progressBytes, uploads.progressWindowMs]).toEqual([1024, 500]);
});

test('UPLOAD_PREAUTH_BYTES is read (0: a file before its key goes straight to the spool)', () => {
  expect(loadConfig({ UPLOAD_PREAUTH_BYTES: '0' }).uploads.preAuthBytes).toBe(0);
  expect(loadConfig({ UPLOAD_PREAUTH_BYTES: '65536' }).uploads.preAuthBytes).toBe(65_536);
});

test('UPLOAD_SPOOL_BYTES is read (0: no file spooled before its key)', () => {
  expect(loadConfig({ UPLOAD_SPOOL_BYTES: '0' }).uploads.spoolBytes).toBe(0);
  expect(loadConfig({ UPLOAD_SPOOL_BYTES: '1048576' }).uploads.spoolBytes).toBe(1_048_576);
});

test.each([
  [{ UPLOAD_PREAUTH_BYTES: '-1' }, /UPLOAD_PREAUTH_BYTES must be a whole number from 0/],
  [{ UPLOAD_SPOOL_BYTES: '-5' }, /UPLOAD_SPOOL_BYTES must be a whole number from 0/],
  [{ UPLOAD_SPOOL_BYTES: String(2 * 1024 ** 4) }, /UPLOAD_SPOOL_BYTES/],
  [{ UPLOAD_PREAUTH_BYTES: String(64 * 1024 ** 2) }, /UPLOAD_PREAUTH_BYTES/],
  [{ UPLOADS_PER_ADDRESS: '0' }, /UPLOADS_PER_ADDRESS must be a whole number from 1/],
  [{ UPLOADS_TOTAL: 'many' }, /UPLOADS_TOTAL must be a whole number/],
  [{ UPLOAD_PROGRESS_BYTES: '0' }, /UPLOAD_PROGRESS_BYTES must be a whole number from 1/],
  [
    { UPLOAD_PROGRESS_WINDOW_MS: '10' },
    /UPLOAD_PROGRESS_WINDOW_MS must be a whole number from 100/,
  ],
])('%j is refused', (env, message) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(message);
});
