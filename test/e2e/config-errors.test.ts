import path from 'node:path';
import { cleanEnv, execFile } from '../helpers/processes';

const root = path.resolve(__dirname, '../..');

test('an invalid setting exits non-zero with one message naming every bad variable', async () => {
  const run = execFile('node', ['dist/ops/cli/main.js', 'start'], {
    cwd: root,
    env: cleanEnv({
      PORT: 'abc',
      MASTER_KEY: 'dG9vIHNob3J0',
      LOG_LEVEL: 'chatty',
      DATA_DIR: '/nonexistent/x',
    }),
  });
  const error = (await run.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: number; stderr: string } | undefined;
  expect(error).toBeDefined();
  expect(error!.code).not.toBe(0);
  expect(error!.stderr).toMatch(/Invalid configuration/);
  expect(error!.stderr).toMatch(/\bPORT\b/);
  expect(error!.stderr).toMatch(/\bMASTER_KEY\b/);
  expect(error!.stderr).toMatch(/\bLOG_LEVEL\b/);
  expect(error!.stderr.match(/Invalid configuration/g)).toHaveLength(1);
});
