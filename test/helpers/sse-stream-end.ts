/**
 * The end of a window in which nothing more may arrive on a device's SSE stream: the owner sets
 * the installation's status (unchanged), which ends its stream wherever it is held (a kick on the
 * notice channel, after the notices published before it). The stream's end comes after every
 * event the server wrote to it before, so a stray event in flight shows; one the server writes
 * only later is seen by no marker. A device client reports the same end as its `stream-ended`
 * event (`test/e2e/device-client/helpers.ts`).
 */
import { eventually } from './eventually';
import { request } from './http';
import type { SseClient } from './sse';
import type { TestStack } from './stack';

/** Ends `s` through the owner's status route; returns the names of the events it got. */
export async function endedByOwner(
  stack: Pick<TestStack, 'urls' | 'ca'>,
  installation: Installation,
  status: 'enabled' | 'disabled',
  s: SseClient,
  timeoutMs: number,
): Promise<string[]> {
  await setStatusByOwner(stack, installation, status);
  await eventually(`${installation.deviceId}'s stream to end`, () => s.ended, { timeoutMs });
  return s.events.map((e) => e.event);
}

export interface Installation {
  readonly apiKey: string;
  readonly package: string;
  readonly deviceId: string;
}

/** The owner sets the installation's status: its stream ends after what was sent before. */
export async function setStatusByOwner(
  stack: Pick<TestStack, 'urls' | 'ca'>,
  installation: Installation,
  status: 'enabled' | 'disabled',
): Promise<void> {
  const { apiKey, deviceId } = installation;
  const path = `/api/v2/apps/${installation.package}/installations/${encodeURIComponent(deviceId)}`;
  const put = await request(`${stack.urls.admin}${path}`, {
    method: 'PUT',
    json: { status },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  if (put.status !== 200) throw new Error(`PUT ${path}: ${put.status} ${put.text}`);
}
