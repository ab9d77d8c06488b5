/**
 * One push event, checked and routed: `status` updates the installation's status; `version` and
 * `giveup` must be well formed, addressed to this package and device, and signed by the pinned
 * key, or they are refused (logged, reported as `refused`) and nothing is downloaded or withdrawn.
 */
import type { StartParams } from './start-params';
import type { EventListener } from './events';
import type { PendingUpdate } from './pending-update';
import type { Ports } from './ports';
import { asGiveupEvent, asVersionEvent, verifySignature } from './signed-events';
import type { SseEvent } from './sse-parser';

export async function routeEvent(
  ports: Ports,
  params: StartParams,
  publicKey: string,
  sse: SseEvent,
  updates: PendingUpdate,
  setStatus: (status: 'enabled' | 'disabled') => void,
  status: () => 'enabled' | 'disabled' | null,
  emit: EventListener,
): Promise<void> {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(sse.data) as Record<string, unknown>;
  } catch {
    ports.logger.log('warn', `push: unreadable ${sse.event} event`);
    return;
  }
  if (sse.event === 'status') {
    if (data.status === 'enabled' || data.status === 'disabled') setStatus(data.status);
    return;
  }
  if (sse.event !== 'version' && sse.event !== 'giveup') return;
  const event = sse.event === 'version' ? asVersionEvent(data) : asGiveupEvent(data);
  const reason = !event
    ? 'malformed event'
    : event.package !== params.packageName
      ? 'event addressed to another app'
      : !verifySignature(ports.crypto, publicKey, data)
        ? 'bad signature'
        : null;
  if (reason !== null || !event) {
    const message = `push: ${sse.event} event refused (${reason ?? 'malformed event'})`;
    ports.logger.log('error', message);
    emit({ event: 'refused', what: sse.event, reason: reason ?? 'malformed event' });
    return;
  }
  if (event.type === 'version') {
    // Spec: updates go to registered, enabled installations only.
    if (status() !== 'enabled') {
      ports.logger.log('warn', 'push: version event ignored: this installation is not enabled');
      return;
    }
    await updates.onVersion(event);
  } else await updates.onGiveup(event);
}
