import { ConfigError, loadConfig } from '../../../shared/config';

test('DOWNLOAD_MEMORY_MB: 512 by default, 0 turns the memory off, nonsense is named', () => {
  expect(loadConfig({}).downloadMemoryMiB).toBe(512);
  expect(loadConfig({ DOWNLOAD_MEMORY_MB: '0' }).downloadMemoryMiB).toBe(0);
  expect(loadConfig({ DOWNLOAD_MEMORY_MB: '2048' }).downloadMemoryMiB).toBe(2048);
  expect(() => loadConfig({ DOWNLOAD_MEMORY_MB: '-1' })).toThrow(ConfigError);
  expect(() => loadConfig({ DOWNLOAD_MEMORY_MB: 'lots' })).toThrow(/DOWNLOAD_MEMORY_MB/);
});

test('DOWNLOAD_OFFLOAD: off by default; nginx needs an absolute DOWNLOAD_OFFLOAD_DIR', () => {
  expect(loadConfig({}).downloadOffload).toEqual({ mode: 'off' });
  expect(
    loadConfig({ DOWNLOAD_OFFLOAD: 'nginx', DOWNLOAD_OFFLOAD_DIR: '/run/apkrelay/apks' })
      .downloadOffload,
  ).toEqual({ mode: 'nginx', dir: '/run/apkrelay/apks' });
  expect(() => loadConfig({ DOWNLOAD_OFFLOAD: 'nginx' })).toThrow(
    'DOWNLOAD_OFFLOAD=nginx needs DOWNLOAD_OFFLOAD_DIR (an absolute path on a RAM-backed file system)',
  );
  expect(() =>
    loadConfig({ DOWNLOAD_OFFLOAD: 'nginx', DOWNLOAD_OFFLOAD_DIR: 'relative/apks' }),
  ).toThrow('DOWNLOAD_OFFLOAD_DIR must be an absolute path (got "relative/apks")');
  expect(() => loadConfig({ DOWNLOAD_OFFLOAD: 'apache' })).toThrow(
    /DOWNLOAD_OFFLOAD must be one of off, nginx/,
  );
});
