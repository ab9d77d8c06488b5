/** `apkrelay services install|status`: the embedded default services. */
import type { Command } from 'commander';
import {
  ensureMongoServer,
  ensurePostgresServer,
  ensureRedisServer,
} from '../../services/binaries';
import { readServicesState } from '../../services/embedded';
import { stepReporter } from '../../services/steps';
import { cliConfig, output } from '../context';

export function register(program: Command): void {
  const services = program
    .command('services')
    .description('Embedded Redis and MongoDB-protocol server.');

  services
    .command('install')
    .description(
      'Install redis-server and a MongoDB-protocol server (mongod, else FerretDB and, unless ' +
        'EMBEDDED_MONGO_BACKEND=sqlite, PostgreSQL 15) if missing.',
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      const { searchPath, embeddedMongoBackend } = cliConfig();
      const steps = stepReporter(process.stderr);
      const redis = await ensureRedisServer(searchPath, steps);
      const mongo = await ensureMongoServer(searchPath, steps);
      const onPostgres = mongo.kind === 'ferretdb' && embeddedMongoBackend === 'postgresql';
      const postgresql = onPostgres ? await ensurePostgresServer(searchPath, steps) : undefined;
      output(
        opts.json ?? false,
        { redis, mongo, ...(postgresql ? { postgresql } : {}) },
        `redis-server: ${redis}\n${mongo.kind}: ${mongo.bin}` +
          (postgresql ? `\npostgresql: ${postgresql}` : ''),
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
