#!/usr/bin/env node
/**
 * The `apkrelay` command. Each sub-command lives in `ops/cli/commands/<name>.ts` and exports
 * `register(program)`; this file only assembles them and maps failures to an exit status.
 */
import { Command } from 'commander';
import { commandsFor } from './commands';

/** The program with the command `argv` names, or with all of them when it names none. */
export function buildProgram(argv: readonly string[] = []): Command {
  const program = new Command('apkrelay')
    .description('Distribute signed Android APKs to enrolled devices.')
    .showHelpAfterError()
    .exitOverride();
  for (const register of commandsFor(argv[2])) register(program);
  return program;
}

async function main(argv: readonly string[]): Promise<void> {
  try {
    await buildProgram(argv).parseAsync(argv);
  } catch (err) {
    const code = (err as { exitCode?: unknown }).exitCode;
    if (typeof code === 'number') {
      process.exitCode = code;
      return;
    }
    process.stderr.write(`apkrelay: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}

if (require.main === module) void main(process.argv);
