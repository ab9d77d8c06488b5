/**
 * The timers some work armed, and those of them still keeping the process alive: async_hooks sees
 * every timer, those ioredis and BullMQ make in their own module scope included. For checks that a
 * close leaves nothing behind (issue 33).
 */
import { createHook } from 'node:async_hooks';

/** The timers `work` armed while it ran. */
export async function timersArmedBy(work: () => Promise<unknown>): Promise<NodeJS.Timeout[]> {
  const armed: NodeJS.Timeout[] = [];
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'Timeout') armed.push(resource as NodeJS.Timeout);
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return armed;
}

/** The delays of the timers still pending and keeping the process alive. */
export function holding(timers: NodeJS.Timeout[]): string[] {
  type Internal = NodeJS.Timeout & { _destroyed?: boolean; _idleTimeout?: number };
  return (timers as Internal[])
    .filter((timer) => !timer._destroyed && timer.hasRef())
    .map((timer) => `a timer of ${timer._idleTimeout} ms`);
}
