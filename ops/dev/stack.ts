/**
 * A real apkrelay stack for tests that are not written in TypeScript: the Android library's JVM
 * stack test (device-client/android, StackTest) starts it as `node dist/ops/dev/stack.js`. Not
 * part of the product: nothing in the CLI or the services imports it.
 *
 * It starts embedded Redis and MongoDB-protocol server for a temporary DATA_DIR, the workers and
 * the API as their own processes on free ports (ops/dev/deployment.ts), signs up an account, and
 * prints one JSON line: `{"event":"ready", urls: {admin, web, push}, apiKey, pushKey (SPKI,
 * base64), ca (PEM)}`. Then it reads commands from standard input, one per line, and answers each
 * with one JSON line:
 *
 *   upload <apk file> <current|not-current>   → {"event":"uploaded", ok, status, message}
 *   stop-api                                   → {"event":"api-stopped"} (SIGTERM, waited for)
 *   start-api                                  → {"event":"api-started"} (same ports, ready)
 *   quit (or end of input, SIGTERM, SIGINT)     → {"event":"stopped"}, everything stopped, exit 0
 *
 * A failed command answers {"event":"error", message}. Options: --heartbeat-seconds N (default 30).
 */
import { createInterface } from 'node:readline';
import { exchange } from '../cli/upload/http-client';
import { uploadFile } from '../cli/upload/upload-file';
import { createBenchAccount, startDeployment, type Deployment } from './deployment';
import { coerceError } from '../../shared/errors';

function say(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
}

function heartbeatSeconds(argv: readonly string[]): string {
  const i = argv.indexOf('--heartbeat-seconds');
  if (i < 0) return '30';
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n < 1 || n > 3600)
    throw new Error('--heartbeat-seconds takes 1 to 3600');
  return String(n);
}

async function pushKey(d: Deployment): Promise<string> {
  const reply = await exchange({
    method: 'GET',
    url: new URL(`${d.urls.push}/api/v2/push-key`),
    tls: { ca: d.ca },
  });
  if (reply.status !== 200) throw new Error(`push key: HTTP ${reply.status}`);
  return (JSON.parse(reply.text) as { publicKey: string }).publicKey;
}

async function upload(d: Deployment, apiKey: string, file: string, current: string) {
  const result = await uploadFile(file, {
    baseUrl: d.urls.admin,
    apiKey,
    tls: { ca: d.ca },
    current: current === 'current',
    async: false,
    pollTimeoutMs: 60_000,
    retries: 3,
    maxRetryAfterMs: 5_000,
  });
  say('uploaded', { ok: result.ok, status: result.status, message: result.message });
}

async function command(d: Deployment, apiKey: string, line: string): Promise<boolean> {
  const [name, ...args] = line.trim().split(/\s+/);
  if (name === 'upload' && args.length === 2) await upload(d, apiKey, args[0]!, args[1]!);
  else if (name === 'stop-api') {
    await d.stopApi();
    say('api-stopped');
  } else if (name === 'start-api') {
    await d.startApi();
    say('api-started');
  } else if (name === 'quit') return false;
  else if (name) say('error', { message: `unknown command: ${line}` });
  return true;
}

async function main(): Promise<void> {
  const d = await startDeployment({
    maxApkBytes: 64 * 1024 * 1024,
    env: { HEARTBEAT_SECONDS: heartbeatSeconds(process.argv.slice(2)) },
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= d.stop().then(() => {
      say('stopped');
      process.exit(0);
    }));
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  try {
    const apiKey = await createBenchAccount(d);
    say('ready', { urls: d.urls, apiKey, pushKey: await pushKey(d), ca: d.ca });
    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) {
      try {
        if (!(await command(d, apiKey, line))) break;
      } catch (err) {
        say('error', { message: coerceError(err).message });
      }
    }
  } finally {
    await stop();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`stack: ${err.message}\n`);
  process.exit(1);
});
