/**
 * Devices for tests: registers installations through the real route (`POST /api/v2/installations`)
 * as a device client does before it reports anything. Exception reports are taken only from
 * registered installations, so a test that sends reports registers its device ids first.
 */
import { request } from './http';

export interface DeviceTarget {
  /** A host serving the device routes (admin, web or push URL). */
  readonly baseUrl: string;
  readonly ca: string;
  readonly apiKey: string;
  readonly package: string;
}

/** Registers each device id (in order); returns each one's status. Throws on a refusal. */
export async function registerDevices(
  target: DeviceTarget,
  deviceIds: readonly string[],
  installedMd5?: string,
): Promise<Array<'enabled' | 'disabled'>> {
  const statuses: Array<'enabled' | 'disabled'> = [];
  for (const deviceId of deviceIds) {
    const reply = await request(`${target.baseUrl}/api/v2/installations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.apiKey}` },
      json: { package: target.package, deviceId, ...(installedMd5 ? { installedMd5 } : {}) },
      ca: target.ca,
    });
    if (reply.status !== 200) {
      throw new Error(`registration of ${deviceId} failed: ${reply.status} ${reply.text}`);
    }
    statuses.push(reply.json<{ status: 'enabled' | 'disabled' }>().status);
  }
  return statuses;
}

/** The device ids `${prefix}${i}` for i in [0, count). */
export function deviceIds(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}
