/** LEGACY_PUSH_PORT (off unless set, a port of its own) and LEGACY_PUSH_TLS_MIN (TLS 1.2 unless lowered). */
import { ConfigError, loadConfig } from '../../../shared/config';

test('off by default, TLS 1.2 minimum; read when set', () => {
  expect(loadConfig({})).toMatchObject({ legacyPushPort: undefined, legacyPushTlsMin: 'TLSv1.2' });
  expect(loadConfig({ LEGACY_PUSH_PORT: '6670', LEGACY_PUSH_TLS_MIN: 'TLSv1' })).toMatchObject({
    legacyPushPort: 6670,
    legacyPushTlsMin: 'TLSv1',
  });
});

test.each([
  [{ LEGACY_PUSH_PORT: '3002' }, 'LEGACY_PUSH_PORT must differ from PORT, WEB_PORT and PUSH_PORT'],
  [
    { LEGACY_PUSH_PORT: '70000' },
    'LEGACY_PUSH_PORT must be a whole number from 1 to 65535 (got "70000")',
  ],
  [
    { LEGACY_PUSH_TLS_MIN: 'SSLv3' },
    'LEGACY_PUSH_TLS_MIN must be one of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (got "SSLv3")',
  ],
])('%j is refused', (env, problem) => {
  let err: unknown;
  try {
    loadConfig(env);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).problems).toEqual([problem]);
});

test('the listener bounds (issue 31): defaults and read when set', () => {
  expect(loadConfig({}).legacyPushBounds).toEqual({
    maxConnections: 20_000,
    maxPendingPerAddress: 32,
    maxHeartbeatSeconds: 300,
  });
  const set = loadConfig({
    LEGACY_PUSH_MAX_CONNECTIONS: '500',
    LEGACY_PUSH_MAX_PENDING_PER_ADDRESS: '0',
    LEGACY_PUSH_MAX_HEARTBEAT_SECONDS: '60',
  });
  expect(set.legacyPushBounds).toEqual({
    maxConnections: 500,
    maxPendingPerAddress: 0,
    maxHeartbeatSeconds: 60,
  });
  expect(() => loadConfig({ LEGACY_PUSH_MAX_HEARTBEAT_SECONDS: '10' })).toThrow(ConfigError);
});
