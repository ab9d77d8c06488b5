import { ConfigError, loadConfig } from '../../../shared/config';

describe('REDIS_URL naming a cluster', () => {
  test('a redis+cluster URL is kept as given', () => {
    const url = 'redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7000';
    expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
  });

  test('a malformed one stops start-up without echoing the password', () => {
    let error: unknown;
    try {
      loadConfig({ REDIS_URL: 'redis+cluster://:topsecret@10.0.0.1:7000/3' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^REDIS_URL names a cluster but is malformed/);
    expect(problems[0]).not.toContain('topsecret');
  });

  test('single-node URLs still work', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://r.internal:6380' }).redisUrl).toBe(
      'rediss://r.internal:6380',
    );
  });
});
