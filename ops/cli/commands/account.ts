/** `apkrelay account create|set-plan|set-role`: operator commands on accounts. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { createAccountsService, validatePlan } from '../../../shared/accounts/service';
import { FREE_PLAN } from '../../../shared/accounts/types';
import { output, withDatabase } from '../context';

function planOption(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return validatePlan(Number(value)).installations;
}

export function register(program: Command): void {
  const account = program.command('account').description('Manage accounts.');

  account
    .command('create')
    .description('Create an account and print its API key.')
    .requiredOption('--email <email>', 'login email')
    .requiredOption('--password <password>', 'login password (8 characters or more)')
    .option(
      '--plan <installations>',
      'plan quantity of installations',
      planOption,
      FREE_PLAN.installations,
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { email: string; password: string; plan: number; json?: boolean }) => {
      const created = await withDatabase((db, keys) =>
        createAccountsService(db, keys).create({
          email: opts.email,
          password: opts.password,
          plan: { installations: opts.plan },
        }),
      );
      const { account: a, apiKey } = created;
      output(
        opts.json ?? false,
        { id: a.id, email: a.email, apiKey, plan: a.plan },
        `Created ${a.email} (plan: ${a.plan.installations} installations)\nAPI key: ${apiKey}`,
      );
    });

  account
    .command('set-plan')
    .description("Change an account's plan quantity of installations.")
    .requiredOption('--email <email>', 'the account')
    .requiredOption('--plan <installations>', 'new plan quantity', planOption)
    .option('--json', 'print one JSON object')
    .action(async (opts: { email: string; plan: number; json?: boolean }) => {
      const updated = await withDatabase((db, keys) =>
        createAccountsService(db, keys).setPlan(opts.email, { installations: opts.plan }),
      );
      output(
        opts.json ?? false,
        { id: updated.id, email: updated.email, plan: updated.plan },
        `${updated.email}: plan set to ${updated.plan.installations} installations`,
      );
    });

  account
    .command('set-role')
    .description('Grant a role to an account (operator: queue board and operations), or revoke it.')
    .requiredOption('--email <email>', 'the account')
    .addOption(
      new Option('--role <role>', 'the role').choices(['operator', 'owner']).makeOptionMandatory(),
    )
    .option('--revoke', 'remove the role instead of granting it')
    .option('--json', 'print one JSON object')
    .action(
      async (opts: {
        email: string;
        role: 'operator' | 'owner';
        revoke?: boolean;
        json?: boolean;
      }) => {
        const updated = await withDatabase((db, keys) =>
          createAccountsService(db, keys).setRole(opts.email, opts.role, !opts.revoke),
        );
        output(
          opts.json ?? false,
          { id: updated.id, email: updated.email, roles: updated.roles },
          `${updated.email}: roles ${updated.roles.join(', ') || '(none)'}`,
        );
      },
    );
}
