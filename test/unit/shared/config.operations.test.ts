import { loadConfig, type ConfigError } from '../../../shared/config';

test('backup and metrics defaults', () => {
  const config = loadConfig({}, '/srv/app');
  expect(config).toMatchObject({
    backupCron: '0 30 2 * * *',
    backupTz: 'UTC',
    backupDir: '/srv/app/.data/backups',
    backupKeepDays: 14,
    metricsToken: undefined,
  });
  expect(loadConfig({ DATA_DIR: '/var/lib/x' }, '/srv').backupDir).toBe('/var/lib/x/backups');
});

test('backup and metrics settings are read and validated together', () => {
  const config = loadConfig(
    {
      BACKUP_CRON: '*/10 * * * * *',
      BACKUP_TZ: 'Europe/Lisbon',
      BACKUP_DIR: 'bk',
      BACKUP_KEEP_DAYS: '30',
      METRICS_TOKEN: 'a-long-enough-token',
    },
    '/srv',
  );
  expect(config).toMatchObject({
    backupCron: '*/10 * * * * *',
    backupTz: 'Europe/Lisbon',
    backupDir: '/srv/bk',
    backupKeepDays: 30,
    metricsToken: 'a-long-enough-token',
  });
  let error: ConfigError | undefined;
  try {
    loadConfig({
      BACKUP_CRON: 'every night',
      BACKUP_TZ: 'Mars/Olympus',
      BACKUP_KEEP_DAYS: '0',
      METRICS_TOKEN: 'short',
    });
  } catch (err) {
    error = err as ConfigError;
  }
  expect(error?.problems.map((p) => p.split(' ')[0])).toEqual([
    'BACKUP_CRON',
    'BACKUP_TZ',
    'BACKUP_KEEP_DAYS',
    'METRICS_TOKEN',
  ]);
});
