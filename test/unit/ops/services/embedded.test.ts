import { mongoServerArgs, redisServerArgs } from '../../../../ops/services/embedded';

describe('mongoServerArgs', () => {
  test('FerretDB on SQLite keeps its files and state in the directory, on loopback', () => {
    expect(mongoServerArgs('ferretdb', '/d/ferretdb', 27018)).toEqual([
      '--handler=sqlite',
      '--sqlite-url=file:/d/ferretdb/',
      '--listen-addr=127.0.0.1:27018',
      '--state-dir=/d/ferretdb',
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ]);
  });

  test('FerretDB on PostgreSQL: no URL on the command line (it holds the password)', () => {
    const args = mongoServerArgs('ferretdb', '/d/ferretdb', 27018, 'postgresql');
    expect(args).toEqual([
      '--handler=postgresql',
      '--listen-addr=127.0.0.1:27018',
      '--state-dir=/d/ferretdb',
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ]);
  });

  test('mongod binds loopback only', () => {
    expect(mongoServerArgs('mongod', '/d/mongod', 27017)).toEqual([
      '--dbpath',
      '/d/mongod',
      '--bind_ip',
      '127.0.0.1',
      '--port',
      '27017',
      '--quiet',
    ]);
  });
});

test('redisServerArgs: the config file first, loopback, append-only, no eviction', () => {
  expect(redisServerArgs('/d/redis', 6400, '/d/redis/redis.conf')).toEqual([
    '/d/redis/redis.conf',
    ...['--port', '6400', '--bind', '127.0.0.1', '--dir', '/d/redis'],
    ...['--appendonly', 'yes', '--appendfsync', 'everysec'],
    ...['--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--protected-mode', 'yes'],
  ]);
});
