/**
 * Every sub-command of `apkrelay`, in the order `--help` lists them, each loaded only when it
 * is needed: `apkrelay upload` must not pay for the server's modules (the database driver, the
 * queues, the web pages) in start-up time and memory.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS require is the lazy load */
import type { Command } from 'commander';

export type Register = (program: Command) => void;

/** What each command module exports. */
interface Module {
  readonly register: Register;
}

const loaders: ReadonlyArray<readonly [string, () => Register]> = [
  ['start', () => (require('./start') as Module).register],
  ['account', () => (require('./account') as Module).register],
  ['services', () => (require('./services') as Module).register],
  ['inspect', () => (require('./inspect') as Module).register],
  ['upload', () => (require('./upload') as Module).register],
  ['backup', () => (require('./backup') as Module).register],
  ['keys', () => (require('./keys') as Module).register],
  ['device-sim', () => (require('./device-sim') as Module).register],
];

/** The command named by `name` alone, or every command (for help, or a name that is none). */
export function commandsFor(name: string | undefined): Register[] {
  const named = loaders.find(([command]) => command === name);
  return (named ? [named] : loaders).map(([, load]) => load());
}
