import { ConfigError, loadConfig } from '../../../shared/config';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  test('defaults: three ports, TLS on, embedded services, ./.data', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      port: 3000,
      webPort: 3001,
      pushPort: 3002,
      tls: true,
      redisUrl: undefined,
      mongoUrl: undefined,
      embeddedMongoBackend: 'postgresql',
      masterKey: undefined,
      dataDir: '/srv/app/.data',
      logLevel: 'info',
      publicBaseUrl: 'https://localhost:3000',
      publicWebUrl: 'https://localhost:3001',
      publicPushUrl: 'https://localhost:3002',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  test('reads every documented variable', () => {
    const config = loadConfig(
      {
        PORT: '8443',
        WEB_PORT: '8444',
        PUSH_PORT: '8445',
        PUBLIC_BASE_URL: 'https://admin.example.com/',
        PUBLIC_WEB_URL: 'https://dl.example.com',
        PUBLIC_PUSH_URL: 'https://push.example.com',
        REDIS_URL: 'redis://10.0.0.1:6379',
        MONGO_URL: 'mongodb://10.0.0.2:27017/relay',
        DATA_DIR: '/var/lib/apkrelay',
        MASTER_KEY: KEY,
        TLS: 'off',
        TLS_CERT: 'cert.pem',
        TLS_KEY: 'key.pem',
        LOG_LEVEL: 'debug',
      },
      '/etc/apkrelay',
    );
    expect(config).toMatchObject({
      port: 8443,
      webPort: 8444,
      pushPort: 8445,
      publicBaseUrl: 'https://admin.example.com',
      redisUrl: 'redis://10.0.0.1:6379',
      mongoUrl: 'mongodb://10.0.0.2:27017/relay',
      dataDir: '/var/lib/apkrelay',
      tls: false,
      tlsCert: '/etc/apkrelay/cert.pem',
      tlsKey: '/etc/apkrelay/key.pem',
      logLevel: 'debug',
    });
    expect(config.masterKey?.equals(Buffer.alloc(32, 7))).toBe(true);
  });

  test('EMBEDDED_MONGO_BACKEND: postgresql or sqlite, nothing else', () => {
    expect(loadConfig({ EMBEDDED_MONGO_BACKEND: 'sqlite' }).embeddedMongoBackend).toBe('sqlite');
    expect(loadConfig({ EMBEDDED_MONGO_BACKEND: 'PostgreSQL' }).embeddedMongoBackend).toBe(
      'postgresql',
    );
    expect(() => loadConfig({ EMBEDDED_MONGO_BACKEND: 'mysql' })).toThrow(
      'EMBEDDED_MONGO_BACKEND must be one of postgresql, sqlite (got "mysql")',
    );
  });

  test('TLS=off makes the default public URLs plain HTTP', () => {
    expect(loadConfig({ TLS: 'off' }).publicBaseUrl).toBe('http://localhost:3000');
  });

  test('one error names every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'abc',
        WEB_PORT: '70000',
        MASTER_KEY: Buffer.alloc(16).toString('base64'),
        TLS: 'maybe',
        REDIS_URL: 'http://not-redis',
        LOG_LEVEL: 'loud',
        TLS_CERT: 'only-cert.pem',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of [
      'PORT',
      'WEB_PORT',
      'MASTER_KEY',
      'TLS',
      'REDIS_URL',
      'LOG_LEVEL',
      'TLS_CERT',
    ]) {
      expect(message).toMatch(new RegExp(`\\b${name}\\b`));
    }
    expect((error as ConfigError).problems).toHaveLength(7);
  });

  test('ports must differ', () => {
    expect(() => loadConfig({ PORT: '4000', WEB_PORT: '4000' })).toThrow(/must differ/);
  });

  test('a MASTER_KEY that is not base64 is refused', () => {
    expect(() => loadConfig({ MASTER_KEY: '!'.repeat(44) })).toThrow(/MASTER_KEY/);
  });
});
