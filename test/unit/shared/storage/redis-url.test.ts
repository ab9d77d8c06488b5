import { isClusterUrl, parseClusterUrl } from '../../../../shared/storage/redis-url';

describe('isClusterUrl', () => {
  test.each([
    ['redis+cluster://a:7000', true],
    ['rediss+cluster://a:7000', true],
    ['REDIS+CLUSTER://a:7000', true],
    ['redis://a:6379', false],
    ['rediss://a:6379', false],
    ['http://a:7000', false],
  ])('%s: %s', (url, expected) => expect(isClusterUrl(url)).toBe(expected));
});

describe('parseClusterUrl', () => {
  test('several nodes, password only, plain TCP', () => {
    expect(parseClusterUrl('redis+cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: false,
      username: undefined,
      password: 's3cret',
    });
  });

  test('user and percent-encoded password, TLS, host names, trailing slash', () => {
    expect(
      parseClusterUrl('rediss+cluster://app:p%40ss%3Aw@redis-a.internal:6380,redis-b/'),
    ).toEqual({
      nodes: [
        { host: 'redis-a.internal', port: 6380 },
        { host: 'redis-b', port: 6379 },
      ],
      tls: true,
      username: 'app',
      password: 'p@ss:w',
    });
  });

  test('IPv6 literals in brackets; no credentials', () => {
    expect(parseClusterUrl('redis+cluster://[::1]:7000,[fd00::2]:7001')).toEqual({
      nodes: [
        { host: '::1', port: 7000 },
        { host: 'fd00::2', port: 7001 },
      ],
      tls: false,
      username: undefined,
      password: undefined,
    });
  });

  test.each([
    ['a database path', 'redis+cluster://a:7000/2'],
    ['no node', 'redis+cluster://'],
    ['an empty node', 'redis+cluster://a:7000,,b:7001'],
    ['port 0', 'redis+cluster://a:0'],
    ['port 65536', 'redis+cluster://a:65536'],
    ['a port that is not a number', 'redis+cluster://a:http'],
    ['a query', 'redis+cluster://a:7000?db=1'],
    ['bad percent-encoding', 'redis+cluster://:%zz@a:7000'],
    ['a single-node scheme', 'redis://a:7000'],
  ])('refuses %s', (_what, url) => expect(() => parseClusterUrl(url)).toThrow(Error));
});
