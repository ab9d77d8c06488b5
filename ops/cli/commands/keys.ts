/**
 * `apkrelay keys id|reseal`: master key rotation (docs/key-rotation.md). `reseal` moves every
 * stored value to MASTER_KEY; run it with the old key still in MASTER_KEY_PREVIOUS, then drop it.
 */
import type { Command } from 'commander';
import { resealAll } from '../../../shared/key-rotation/reseal';
import { cliKeys, output, withDatabase } from '../context';

export function register(program: Command): void {
  const keys = program.command('keys').description('Master key rotation.');

  keys
    .command('id')
    .description('Print the ids of MASTER_KEY and of each MASTER_KEY_PREVIOUS key.')
    .option('--json', 'print {current, previous}')
    .action(async (opts: { json?: boolean }) => {
      const ring = await cliKeys();
      const previous = ring.ids.slice(1);
      output(
        opts.json ?? false,
        { current: ring.id, previous },
        `MASTER_KEY           ${ring.id}\nMASTER_KEY_PREVIOUS  ${previous.join(', ') || '(none)'}`,
      );
    });

  keys
    .command('reseal')
    .description(
      'Re-seal every stored value under MASTER_KEY (idempotent; safe to run again if cut short).',
    )
    .option(
      '--json',
      'print {keyId, resealed: {accounts, access_keys, apks, pinned_keys, webhook_endpoints}}',
    )
    .action(async (opts: { json?: boolean }) => {
      const report = await withDatabase((db, ring) => resealAll(db, ring));
      const r = report.resealed;
      output(
        opts.json ?? false,
        report,
        `Everything is sealed under master key ${report.keyId} (resealed now: ` +
          `${r.accounts} accounts, ${r.access_keys} device keys and CI tokens, ` +
          `${r.apks} APK keys, ${r.pinned_keys} pinned keys, ` +
          `${r.webhook_endpoints} webhook secrets). ` +
          'MASTER_KEY_PREVIOUS can be removed.',
      );
    });
}
