/**
 * `apkrelay <command>` loads that command alone: each loader's name must be the name its module
 * registers, or the command would be unknown when called by name.
 */
import { buildProgram } from '../../../../../ops/cli/main';

const NAMES = ['start', 'account', 'services', 'inspect', 'upload', 'backup', 'keys', 'device-sim'];

test('with no command named, every command is registered, in the help order', () => {
  const program = buildProgram(['node', 'apkrelay']);
  expect(program.commands.map((c) => c.name())).toEqual(NAMES);
});

test.each(NAMES)('`apkrelay %s` registers that command alone', (name) => {
  const program = buildProgram(['node', 'apkrelay', name, '--help']);
  expect(program.commands.map((c) => c.name())).toEqual([name]);
});

test('a name that is no command registers them all, so the error can list them', () => {
  const program = buildProgram(['node', 'apkrelay', 'uplaod']);
  expect(program.commands).toHaveLength(NAMES.length);
});
