/** `apkrelay services install|status`: the embedded default services. */
import type { Command } from 'commander';
import { ensureMongoServer, ensureRedisServer } from '../../services/binaries';
import { readServicesState } from '../../services/embedded';
import { cliConfig, output } from '../context';

export function register(program: Command): void {
  const services = program
    .command('services')
    .description('Embedded Redis and MongoDB-protocol server.');

  services
    .command('install')
    .description(
      'Install redis-server and a MongoDB-protocol server (mongod, else FerretDB) if missing.',
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      const { searchPath } = cliConfig();
      const redis = await ensureRedisServer(searchPath);
      const mongo = await ensureMongoServer(searchPath);
      output(
        opts.json ?? false,
        { redis, mongo },
        `redis-server: ${redis}\n${mongo.kind}: ${mongo.bin}`,
      );
    });

  services
    .command('status')
    .description('Show the embedded services recorded for this DATA_DIR.')
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      const state = await readServicesState(cliConfig().dataDir);
      const lines = Object.entries(state).map(
        ([name, s]) => `${name}: ${s.running ? 'running' : 'stopped'} pid ${s.pid} ${s.url}`,
      );
      output(
        opts.json ?? false,
        state,
        lines.length ? lines.join('\n') : 'no embedded services recorded',
      );
    });
}
