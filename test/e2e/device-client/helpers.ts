/** Shared by the device-client end-to-end tests: waiting on fleet events, fixture hashes. */
import { createHash } from 'node:crypto';
import type { FleetEvent } from '../../../device-client/simulator/fleet';
import { eventually } from '../../helpers/eventually';
import { metricSum } from '../../helpers/metrics';
import { setStatusByOwner } from '../../helpers/sse-stream-end';
import type { TestStack } from '../../helpers/stack';
import { fixture } from '../../helpers/uploads';

export const SAMPLE = 'dev.apkrelay.sample';

export async function md5Of(name: string): Promise<string> {
  return createHash('md5')
    .update(await fixture(name))
    .digest('hex');
}

/** Polls until `check` holds, or fails with what was seen. */
export async function until(
  what: string,
  check: () => boolean,
  timeoutMs = 20_000,
  seen: () => unknown = () => undefined,
): Promise<void> {
  try {
    await eventually(what, check, { timeoutMs });
  } catch (err) {
    throw new Error(`${(err as Error).message}; seen: ${JSON.stringify(seen())}`, { cause: err });
  }
}

export function eventsOf(events: FleetEvent[], device: string, name: string): FleetEvent[] {
  return events.filter((e) => e.device === device && e.event === name);
}

/** The API's count of open push streams, all channels (its /metrics gauge, with METRICS_TOKEN). */
export function openStreams(stack: TestStack, metricsToken: string): Promise<number> {
  return metricSum(stack, metricsToken, 'apkrelay_push_streams_open');
}

/**
 * The end of a window in which nothing more may reach a device client over its push stream: the
 * owner sets the installation's status (`enabled`, unchanged), the server ends the stream after
 * what it sent before, and the client reports `stream-ended` once it has handled all of it.
 * Resolves with the device's events up to that end.
 */
export async function streamEndedByOwner<E extends { readonly event: string }>(
  stack: TestStack,
  apiKey: string,
  deviceId: string,
  events: () => readonly E[],
  packageName = SAMPLE,
): Promise<E[]> {
  const before = events().filter((e) => e.event === 'stream-ended').length;
  await setStatusByOwner(stack, { apiKey, package: packageName, deviceId }, 'enabled');
  let end = -1;
  await until(`${deviceId}'s stream-ended`, () => {
    let seen = 0;
    end = events().findIndex((e) => e.event === 'stream-ended' && ++seen > before);
    return end >= 0;
  });
  return events().slice(0, end);
}
