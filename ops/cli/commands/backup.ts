/**
 * `apkrelay backup run|list|verify|restore`: backups on demand, with the same code the nightly
 * `backup` job runs. Archives never contain MASTER_KEY: back it up separately (README).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { createBackup } from '../../../shared/backup/create-backup';
import { verifyBackup } from '../../../shared/backup/read-archive';
import { restoreBackup } from '../../../shared/backup/restore-backup';
import { listBackups, pruneBackups } from '../../../shared/backup/retention';
import { cliConfig, cliKeys, output, withDatabase } from '../context';

interface DirOption {
  dir?: string;
  json?: boolean;
}

const backupDir = (opts: DirOption) => (opts.dir ? path.resolve(opts.dir) : cliConfig().backupDir);

export function register(program: Command): void {
  const backup = program.command('backup').description('Back up and restore the database.');

  backup
    .command('run')
    .description('Write a backup archive now (then apply BACKUP_KEEP_DAYS retention).')
    .option('--dir <dir>', 'directory of archives (default BACKUP_DIR)')
    .option('--json', 'print {path, bytes, sha256, collections, files}')
    .action(async (opts: DirOption) => {
      const config = cliConfig();
      const dir = backupDir(opts);
      const summary = await withDatabase(async (db, keys, log) => {
        const now = new Date();
        const result = await createBackup({ db, dir, at: now, log, keys });
        await pruneBackups(dir, now, config.backupKeepDays, config.backupTz);
        return result;
      });
      output(
        opts.json ?? false,
        summary,
        `${summary.path}\n  ${summary.bytes} bytes, sha256 ${summary.sha256}, ` +
          `${Object.keys(summary.collections).length} collections, ${summary.files} files`,
      );
    });

  backup
    .command('list')
    .description('List the archives, oldest first.')
    .option('--dir <dir>', 'directory of archives (default BACKUP_DIR)')
    .option('--json', 'print one JSON array')
    .action(async (opts: DirOption) => {
      const archives = await listBackups(backupDir(opts));
      output(
        opts.json ?? false,
        archives.map((a) => ({ path: a.path, at: a.at.toISOString(), bytes: a.bytes })),
        archives.map((a) => `${a.at.toISOString()}  ${a.bytes}\t${a.path}`).join('\n') ||
          '(no archives)',
      );
    });

  backup
    .command('verify')
    .description('Authenticate an archive with MASTER_KEY and check every part; exit 1 if not.')
    .argument('<file>', 'the archive')
    .option('--json', 'print one JSON object')
    .action(async (file: string, opts: { json?: boolean }) => {
      const report = await verifyBackup(path.resolve(file), await cliKeys());
      output(
        opts.json ?? false,
        report,
        report.ok
          ? `OK ${report.path} (sha256 ${report.sha256})`
          : `DAMAGED ${report.path}\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
      );
      if (!report.ok) process.exitCode = 1;
    });

  backup
    .command('restore')
    .description('Restore an archive into an empty database (same MASTER_KEY as the backup).')
    .argument('<file>', 'the archive')
    .option('--force', 'empty a non-empty database first')
    .option('--json', 'print one JSON object')
    .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
      const summary = await withDatabase((db, keys) =>
        restoreBackup(db, path.resolve(file), { keys, force: opts.force ?? false }),
      );
      output(
        opts.json ?? false,
        summary,
        `Restored ${summary.path}: ${Object.keys(summary.collections).length} collections, ` +
          `${summary.files} files`,
      );
    });
}
