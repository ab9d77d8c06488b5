/**
 * `apkrelay upload --base-url URL --api-key K FILE...`: uploads APKs to a server's PushLink
 * upload endpoint, streaming each file from disk, several at once (--concurrency), with a
 * progress bar per file on a terminal. Synchronous by default (the reply is the verdict);
 * --async takes the job reply and polls it to the verdict. One line per file (JSON with --json);
 * exit status 1 when any file was not accepted. The API key is never printed.
 */
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { mapPool } from '../upload/pool';
import { progressView, type FileProgress } from '../upload/progress';
import { formatResult } from '../upload/report';
import { followJob, sendFile, type UploadResult, type UploadSettings } from '../upload/upload-file';

interface UploadOptions {
  baseUrl: string;
  apiKey: string;
  current?: boolean;
  whatsnew?: string;
  async?: boolean;
  insecure?: boolean;
  ca?: string;
  json?: boolean;
  concurrency: number;
  pollTimeout: number;
}

function baseUrlOption(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an http:// or https:// URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidArgumentError('must be an http:// or https:// URL');
  }
  if (url.username || url.password) throw new InvalidArgumentError('must not carry credentials');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function integerOption(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

export function register(program: Command): void {
  program
    .command('upload')
    .description('Upload APKs to an apkrelay (or PushLink-compatible) server.')
    .argument('<files...>', 'APK files')
    .requiredOption(
      '--base-url <url>',
      'server base URL, e.g. https://apkrelay.example.com',
      baseUrlOption,
    )
    .requiredOption('--api-key <key>', 'API key of the account')
    .option('--current', 'make each accepted APK the current version')
    .option('--whatsnew <text>', 'release notes stored with each APK')
    .option('--async', 'let the server answer at once, then poll each job to its verdict')
    .option('--insecure', 'do not verify the server certificate')
    .option('--ca <file>', 'trust this PEM certificate (e.g. a self-signed server certificate)')
    .option('--json', 'print one JSON object per file per line')
    .option('--concurrency <n>', 'files uploaded at once', integerOption(1, 64), 4)
    .option(
      '--poll-timeout <seconds>',
      'longest wait for an async verdict',
      integerOption(1, 86_400),
      900,
    )
    .action(async (files: string[], opts: UploadOptions) => {
      const ca = opts.ca === undefined ? undefined : await readFile(opts.ca, 'utf8');
      const settings: UploadSettings = {
        baseUrl: opts.baseUrl,
        apiKey: opts.apiKey,
        tls: { ...(ca !== undefined ? { ca } : {}), insecure: opts.insecure ?? false },
        current: opts.current ?? false,
        ...(opts.whatsnew !== undefined ? { whatsnew: opts.whatsnew } : {}),
        async: opts.async ?? false,
        pollTimeoutMs: opts.pollTimeout * 1000,
        retries: 3,
        maxRetryAfterMs: 30_000,
      };
      const json = opts.json ?? false;
      const bars = !json && process.stderr.isTTY;
      const view = progressView(bars, files.length, process.stderr);
      const pending: string[] = [];
      const follows: Array<Promise<void>> = [];
      let failed = 0;
      const report = (result: UploadResult, progress: FileProgress) => {
        progress.finish(result);
        if (!result.ok) failed++;
        const line = formatResult(result, json, settings.apiKey);
        // With bars on the terminal, lines wait for the bars to stop so neither garbles the other.
        if (bars) pending.push(line);
        else process.stdout.write(line);
      };
      try {
        // The pool bounds transfers only: a job being polled frees its slot for the next file.
        await mapPool(files, opts.concurrency, async (file) => {
          const progress = view.track(file);
          const sent = await sendFile(file, settings, progress);
          if (sent.kind === 'decided') report(sent.result, progress);
          else follows.push(followJob(sent, settings, progress).then((r) => report(r, progress)));
        });
        await Promise.all(follows);
      } finally {
        view.stop();
      }
      for (const line of pending) process.stdout.write(line);
      if (failed > 0) process.exitCode = 1;
    });
}
