import { ConfigError, loadConfig } from '../../../shared/config';

test('slow-sender bounds: defaults of 20 s for headers and 1 h for a whole request', () => {
  const config = loadConfig({});
  expect([config.headersTimeoutMs, config.requestTimeoutMs]).toEqual([20_000, 3_600_000]);
});

test('HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS are read', () => {
  const config = loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '600000' });
  expect([config.headersTimeoutMs, config.requestTimeoutMs]).toEqual([5_000, 600_000]);
});

test.each([
  [{ HEADERS_TIMEOUT_MS: '0' }, /HEADERS_TIMEOUT_MS must be a whole number from 100/],
  [{ REQUEST_TIMEOUT_MS: 'never' }, /REQUEST_TIMEOUT_MS must be a whole number/],
  [
    { HEADERS_TIMEOUT_MS: '30000', REQUEST_TIMEOUT_MS: '10000' },
    /REQUEST_TIMEOUT_MS must not be shorter than HEADERS_TIMEOUT_MS/,
  ],
])('%j is refused', (env, message) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(message);
});
