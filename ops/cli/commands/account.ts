/**
 * `apkrelay account create|set-plan|set-role|reset-2fa`: operator commands on accounts, each
 * change audited in the account's log (shared/accounts/operator-changes.ts).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  createAccountByOperator,
  resetSecondFactor,
  setPlanByOperator,
  setRoleByOperator,
} from '../../../shared/accounts/operator-changes';
import { validatePlan } from '../../../shared/accounts/service';
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
        createAccountByOperator(
          db,
          keys,
          { email: opts.email, password: opts.password, plan: { installations: opts.plan } },
          new Date(),
        ),
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
        setPlanByOperator(db, keys, opts.email, opts.plan, new Date()),
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
        const change = { email: opts.email, role: opts.role, granted: !opts.revoke };
        const updated = await withDatabase((db, keys) =>
          setRoleByOperator(db, keys, change, new Date()),
        );
        output(
          opts.json ?? false,
          { id: updated.id, email: updated.email, roles: updated.roles },
          `${updated.email}: roles ${updated.roles.join(', ') || '(none)'}`,
        );
      },
    );
  registerReset(account);
}

/** `account reset-2fa`: the operator's way out for a user who lost their second factor. */
function registerReset(account: Command): void {
  account
    .command('reset-2fa')
    .description(
      "Turn a user's two-factor authentication off (the account owner's or a member's, by email).",
    )
    .requiredOption('--email <email>', 'the user')
    .option('--json', 'print one JSON object')
    .action(async (opts: { email: string; json?: boolean }) => {
      const reset = await withDatabase((db, keys) =>
        resetSecondFactor(db, keys, opts.email, new Date()),
      );
      output(
        opts.json ?? false,
        reset,
        reset.removed
          ? `${reset.email}: two-factor authentication turned off`
          : `${reset.email}: had no two-factor authentication`,
      );
    });
}
