/**
 * Issue 31, finding 7: every `apkrelay` command, walked from the program itself (buildProgram).
 * Each is listed by hand either as a change to an account (then the built CLI runs it against a
 * real stack's database, and it must write exactly one audit entry, of the action listed, by the
 * CLI actor) or as changing no account's state, with why. A command in neither list fails.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../../ops/cli/main';
import { newAccount } from '../../helpers/accounts';
import { execFile, stackEnv } from '../../helpers/processes';
import { startStack, type TestStack } from '../../helpers/stack';

jest.setTimeout(180_000);
const root = path.resolve(__dirname, '../../..');

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false });
});
afterAll(() => stack.close());

interface Change {
  /** Arguments after the command's name, for an account of `email`. */
  readonly args: (email: string) => string[];
  readonly action: string;
  /** Prepares the account so the command has something to change. */
  readonly before?: (account: { id: string; email: string }) => Promise<void>;
}

/** Commands that change an account: the action of the one entry each must write. */
const CHANGES: Readonly<Record<string, Change>> = {
  'account create': {
    args: (email) => ['--email', `new-${email}`, '--password', 'cli-password-1'],
    action: 'account.created',
  },
  'account set-plan': {
    args: (email) => ['--email', email, '--plan', '17'],
    action: 'account.plan-changed',
  },
  'account set-role': {
    args: (email) => ['--email', email, '--role', 'operator'],
    action: 'account.role-granted',
  },
  'account reset-2fa': {
    args: (email) => ['--email', email],
    action: 'member.totp-reset',
    before: async (account) => {
      await stack.mongo.db.collection('totp_factors').insertOne({
        _id: `owner:${account.id}` as never,
        accountId: account.id,
        seedSealed: 'x',
        enabled: true,
        lastStep: null,
        createdAt: new Date(),
      });
    },
  },
};

/** Commands that change no account's state, and why. */
const NO_ACCOUNT_CHANGE: Readonly<Record<string, string>> = {
  start: 'runs the service; what it does is audited by its routes and workers',
  'services install': "installs the embedded services' binaries on the operator's machine",
  'services status': 'reads',
  inspect: 'reads an APK file',
  upload: 'sends APKs through the HTTP API, whose upload routes write the entries',
  'backup run': 'writes an archive of the database; changes nothing in it',
  'backup list': 'reads',
  'backup verify': 'reads an archive',
  'backup restore': 'replaces the whole database, audit logs included, with an archived one',
  'keys id': 'reads',
  'keys reseal': 're-seals the same secrets under the current master key: no account sees a change',
  'device-sim': 'acts as devices through the device routes of the HTTP API',
};

/** Every leaf command of the program, named by its path (`account set-plan`). */
function leaves(command: Command, prefix: string[] = []): string[] {
  return command.commands.flatMap((c) => {
    const name = [...prefix, c.name()];
    return c.commands.length === 0 ? [name.join(' ')] : leaves(c, name);
  });
}

test('every command is listed: as a change with its audit action, or as no change with why', () => {
  const all = leaves(buildProgram()).sort();
  const listed = [...Object.keys(CHANGES), ...Object.keys(NO_ACCOUNT_CHANGE)].sort();
  expect(all).toEqual(listed);
  for (const why of Object.values(NO_ACCOUNT_CHANGE)) expect(why.length).toBeGreaterThan(3);
});

test.each(Object.keys(CHANGES))('`apkrelay %s` writes exactly one audit entry', async (name) => {
  const change = CHANGES[name]!;
  const account = await newAccount(stack);
  await change.before?.(account);
  const log = stack.mongo.db.collection('audit_log');
  const before = new Set((await log.find({}).toArray()).map((e) => String(e._id)));
  await execFile(
    'node',
    ['dist/ops/cli/main.js', ...name.split(' '), ...change.args(account.email)],
    {
      cwd: root,
      env: stackEnv(stack, {}),
    },
  );
  const added = (await log.find({}).toArray()).filter((e) => !before.has(String(e._id)));
  expect(added.map((e): unknown[] => [e.action, e.actor, e.address])).toEqual([
    [change.action, { kind: 'operator', id: 'cli', name: 'operator (apkrelay CLI)' }, null],
  ]);
});
