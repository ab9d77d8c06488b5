import { ConfigError, loadConfig } from '../../../shared/config';

test('failed-auth throttling and proxy trust: defaults', () => {
  const config = loadConfig({});
  expect(config.trustProxy).toBe(false);
  expect(config.authFailuresPerAddress).toBe(100);
  expect(config.authFailuresPerKey).toBe(20);
});

test('TRUST_PROXY takes off, a hop count, or addresses and subnets; limits may be 0 (off)', () => {
  expect(loadConfig({ TRUST_PROXY: 'off' }).trustProxy).toBe(false);
  expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
  expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::1' }).trustProxy).toEqual([
    'loopback',
    '10.0.0.0/8',
    'fd00::1',
  ]);
  const config = loadConfig({ AUTH_FAILURES_PER_ADDRESS: '0', AUTH_FAILURES_PER_KEY: '5' });
  expect([config.authFailuresPerAddress, config.authFailuresPerKey]).toEqual([0, 5]);
});

test('bad values are named together', () => {
  let error: unknown;
  try {
    loadConfig({
      TRUST_PROXY: 'yes please',
      AUTH_FAILURES_PER_ADDRESS: '-1',
      AUTH_FAILURES_PER_KEY: 'x',
    });
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const problems = (error as ConfigError).problems.join('\n');
  for (const name of ['TRUST_PROXY', 'AUTH_FAILURES_PER_ADDRESS', 'AUTH_FAILURES_PER_KEY']) {
    expect(problems).toContain(name);
  }
  expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow(/TRUST_PROXY/);
});
