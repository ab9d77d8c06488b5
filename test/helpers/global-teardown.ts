import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { stopRecordedServices, type Services } from '../../ops/services/embedded';
import { isAlive } from '../../ops/services/child';
import { TEST_SERVICES_DIR, usersDir } from './global-setup';
import type { RedisCluster } from './redis-cluster';
import { armExitWatchdog } from './exit-watchdog';

/** How long jest's process may outlive its run before the watchdog names what holds it. */
const EXIT_GRACE_MS = 30_000;

export default async function globalTeardown(): Promise<void> {
  try {
    await stopWhatThisRunStarted();
  } finally {
    armExitWatchdog(EXIT_GRACE_MS);
  }
}

async function stopWhatThisRunStarted(): Promise<void> {
  await (globalThis as { __apkrelayCluster?: RedisCluster }).__apkrelayCluster?.close();
  await rm(path.join(usersDir(), String(process.pid)), { force: true });
  const others = (await readdir(usersDir()).catch(() => []))
    .map(Number)
    .filter((pid) => pid > 0 && isAlive(pid));
  // Another jest run still uses the services; it (or the last one) stops them.
  if (others.length > 0) return;
  await (globalThis as { __apkrelayServices?: Services }).__apkrelayServices?.stop();
  // The run that started them may have ended first: the last one out stops them all the same.
  if (!process.env.REDIS_URL || !process.env.MONGO_URL)
    await stopRecordedServices(TEST_SERVICES_DIR);
}
