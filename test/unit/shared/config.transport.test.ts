/**
 * Issue 24, finding 8 (b, c): ADMIN_HOST binds the admin listener apart from the others (default:
 * HOST); HSTS_MAX_AGE is sent on the admin and web hosts, by default one year with TLS=on and
 * nothing (0) with TLS=off, where the TLS-terminating proxy owns the header unless told otherwise.
 */
import { ConfigError, loadConfig } from '../../../shared/config';

test('ADMIN_HOST defaults to HOST, and is read', () => {
  expect(loadConfig({})).toMatchObject({ host: '0.0.0.0', adminHost: '0.0.0.0' });
  expect(loadConfig({ HOST: '10.0.0.5' })).toMatchObject({ adminHost: '10.0.0.5' });
  expect(loadConfig({ ADMIN_HOST: '127.0.0.1' })).toMatchObject({
    host: '0.0.0.0',
    adminHost: '127.0.0.1',
  });
});

test('HSTS_MAX_AGE: one year with TLS, off without it, read when set', () => {
  expect(loadConfig({})).toMatchObject({ hstsMaxAge: 31_536_000 });
  expect(loadConfig({ TLS: 'off' })).toMatchObject({ hstsMaxAge: 0 });
  expect(loadConfig({ TLS: 'off', HSTS_MAX_AGE: '86400' })).toMatchObject({ hstsMaxAge: 86_400 });
  expect(loadConfig({ HSTS_MAX_AGE: '0' })).toMatchObject({ hstsMaxAge: 0 });
});

test.each([[{ HSTS_MAX_AGE: 'forever' }], [{ HSTS_MAX_AGE: '-1' }]])('%j is refused', (env) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
});
