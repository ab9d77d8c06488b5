/**
 * Load for the exception benchmark (ops/bench/exceptions.ts): realistic PushLink exception forms,
 * a seeded app, and a keep-alive HTTP driver with a fixed number of requests in flight.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';
import { ObjectId, type Db } from 'mongodb';
import type { Account } from '../../shared/accounts/types';
import { registerInstallation } from '../../shared/devices/installations';

/** Devices the reports come from (round robin); registered before they report. */
export const BENCH_DEVICES = 500;
const benchDevice = (i: number) => `bench-device-${i % BENCH_DEVICES}`;

/** Registers the bench devices of `pkg` as the registration route does (reports need one). */
export async function registerBenchDevices(db: Db, account: Account, pkg: string): Promise<void> {
  for (let i = 0; i < BENCH_DEVICES; i++) {
    await registerInstallation(
      db,
      account,
      {
        package: pkg,
        deviceId: benchDevice(i),
        installedMd5: null,
        lastDownloadedMd5: null,
        strategy: null,
        device: null,
        metadata: null,
        location: null,
        channel: 'sse',
        plVersion: null,
      },
      new Date(),
    );
  }
}

/** A realistic report: 30 stack lines, 50 log lines, 3 metadata pairs, no screenshot. */
export function formBody(i: number, pkg: string, apiKey: string, md5: string): string {
  const p = new URLSearchParams();
  p.append('package', pkg);
  p.append('api_key', apiKey);
  p.append('hash', md5);
  p.append('deviceId', benchDevice(i));
  p.append('st[]', `java.lang.IllegalStateException: bench failure ${i}`);
  for (let f = 0; f < 29; f++)
    p.append('st[]', `\tat dev.bench.Module${i % 20}.step${f}(Module.java:${f + 1})`);
  for (let l = 0; l < 50; l++)
    p.append(
      'lc[]',
      `11-21 05:00:${String(l % 60).padStart(2, '0')}.000 I/Bench: line ${l} of ${i}`,
    );
  ['user', 'screen', 'build'].forEach((k, j) => {
    p.append(`userInfo${j}[]`, k);
    p.append(`userInfo${j}[]`, `${k}-${i}`);
  });
  p.append('handled', String(i % 2 === 0));
  return p.toString();
}

export async function seedApp(
  db: Db,
  accountId: string,
  pkg: string,
): Promise<{ appId: ObjectId; md5: string }> {
  const appId = new ObjectId();
  const md5 = createHash('md5').update(pkg).digest('hex');
  const now = new Date();
  await db.collection('apps').insertOne({
    _id: appId,
    accountId,
    package: pkg,
    label: 'Bench',
    signerSha256: '0'.repeat(64),
    currentApkId: null,
    currentVersion: 0,
    createdAt: now,
    updatedAt: now,
  });
  await db.collection('apks').insertOne({
    _id: new ObjectId(),
    appId,
    accountId,
    package: pkg,
    versionCode: 1,
    versionName: '1.0',
    label: 'Bench',
    md5,
    sha256: md5,
    uploadedAt: now,
  });
  return { appId, md5 };
}

/** Sends every body with `concurrency` requests in flight over keep-alive; returns reply texts. */
export async function drive(
  urls: string[],
  bodies: string[],
  concurrency: number,
): Promise<string[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const texts: string[] = new Array<string>(bodies.length);
  let next = 0;
  const post = (url: string, body: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request(
        `${url}/exception`,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const loop = async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      // A keep-alive socket the server closed as it was reused: resend. Safe, because a resent
      // report is recognised (same verdict, no second slot, stored once).
      for (let attempt = 1; ; attempt++) {
        try {
          texts[i] = await post(urls[i % urls.length]!, bodies[i]!);
          break;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (attempt >= 3 || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw err;
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, loop));
  } finally {
    agent.destroy();
  }
  return texts;
}
