import { ConfigError, loadConfig } from '../../../shared/config';

test('DOWNLOAD_CACHE_MB: 2048 by default, 0 turns the cache off, nonsense is named', () => {
  expect(loadConfig({}).downloadCacheMiB).toBe(2048);
  expect(loadConfig({ DOWNLOAD_CACHE_MB: '0' }).downloadCacheMiB).toBe(0);
  expect(loadConfig({ DOWNLOAD_CACHE_MB: '512' }).downloadCacheMiB).toBe(512);
  expect(() => loadConfig({ DOWNLOAD_CACHE_MB: '-1' })).toThrow(ConfigError);
  expect(() => loadConfig({ DOWNLOAD_CACHE_MB: 'lots' })).toThrow(/DOWNLOAD_CACHE_MB/);
});
