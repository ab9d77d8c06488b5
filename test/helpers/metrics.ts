/**
 * Reading the API's own `/metrics` (admin host, METRICS_TOKEN) in tests: a gauge the product keeps
 * is how a test learns that something inside a process has finished, without a window on the
 * wall clock (an upload's handler done with its body, the push hub holding a stream).
 */
import { eventuallyValue } from './eventually';
import { request } from './http';
import type { TestStack } from './stack';

/** The sum of every series of `name` (all label values) in the API's /metrics. */
export async function metricSum(stack: TestStack, token: string, name: string): Promise<number> {
  const reply = await request(`${stack.urls.admin}/metrics`, {
    headers: { authorization: `Bearer ${token}` },
    ca: stack.ca,
  });
  if (reply.status !== 200) throw new Error(`/metrics answered ${reply.status}`);
  const lines = reply.text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  if (lines.length === 0) throw new Error(`/metrics has no series ${name}`);
  return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/**
 * Resolves once the API is receiving exactly `count` uploads (apkrelay_uploads_receiving): each
 * holds an upload slot from its request's headers until its handler is done with the body.
 */
export async function uploadsReceiving(
  stack: TestStack,
  token: string,
  count: number,
): Promise<void> {
  await eventuallyValue(
    `${count} uploads being received (apkrelay_uploads_receiving)`,
    () => metricSum(stack, token, 'apkrelay_uploads_receiving'),
    (n) => n === count,
  );
}

/**
 * Resolves once the API receives no upload: every upload handler has given its slot back. A
 * refused or cut upload's handler does so only after its last write (what it stored deleted, its
 * spool gone, the reply sent), so what such an upload left behind can then be measured as final:
 * anything written late would have held the slot. (An accepted upload is queued after its body is
 * in, slot given back: wait for its verdict instead.)
 */
export function uploadsDone(stack: TestStack, token: string): Promise<void> {
  return uploadsReceiving(stack, token, 0);
}
