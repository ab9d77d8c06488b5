import type { Services } from '../../ops/services/embedded';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __apkrelayServices?: Services }).__apkrelayServices?.stop();
}
