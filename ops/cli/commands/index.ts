import type { Command } from 'commander';
import { register as account } from './account';
import { register as deviceSim } from './device-sim';
import { register as backup } from './backup';
import { register as inspect } from './inspect';
import { register as keys } from './keys';
import { register as services } from './services';
import { register as start } from './start';
import { register as upload } from './upload';

/** Every sub-command of `apkrelay`, in the order `--help` lists them. */
export const commands: ReadonlyArray<(program: Command) => void> = [
  start,
  account,
  services,
  inspect,
  upload,
  backup,
  keys,
  deviceSim,
];
