/** Runs the BUILT `apkrelay device-sim` (`dist/`, built by `pretest`) in its own process. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';

const root = path.resolve(__dirname, '../../..');
const cli = path.join(root, 'dist/ops/cli/main.js');

/** One printed event (`--json`): the fields the tests read. */
export interface SimLine {
  device: string;
  event: string;
  status?: string;
  fingerprint?: string;
  reason?: string | null;
  verified?: boolean;
  md5?: string;
  hash?: string;
  text?: string;
  reply?: string;
}

/**
 * Starts the simulator trusting `caFile`; `lines` fills as it prints, `stop()` sends SIGINT, `done`
 * has the exit code and stderr.
 */
export function sim(caFile: string, args: string[]) {
  const child = spawn(process.execPath, [cli, 'device-sim', '--json', '--ca', caFile, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: SimLine[] = [];
  let stderr = '';
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l) as SimLine));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr }));
  return { lines, done, stop: () => child.kill('SIGINT'), pid: child.pid! };
}
