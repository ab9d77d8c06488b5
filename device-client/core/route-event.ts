/**
 * One push event, checked and routed: `status` updates the installation's status; `version` and
 * `giveup` must be well formed, addressed to this account, package and device, signed by the
 * pinned key and recent (`checkNotice`), or they are refused (logged, reported as `refused`) and
 * nothing is downloaded or withdrawn. The issuedAt of the latest accepted notice is stored, so a
 * replay of an older one is refused after a restart too.
 */
import type { StartParams } from './start-params';
import type { EventListener } from './events';
import type { PendingUpdate } from './pending-update';
import type { Ports } from './ports';
import { checkNotice } from './signed-events';
import type { SseEvent } from './sse-parser';

const LAST_NOTICE_KEY = 'last-notice-at';

export async function routeEvent(
  ports: Ports,
  params: StartParams,
  publicKey: string,
  /** The account id the registration reply named ('' when it named none: an older server). */
  accountId: string,
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
  const stored = Number(await ports.storage.read(LAST_NOTICE_KEY));
  const lastAcceptedAtMs = stored > 0 ? stored : null;
  const to = { account: accountId, package: params.packageName, device: params.deviceId };
  const verdict = checkNotice(
    ports.crypto,
    publicKey,
    sse.event,
    data,
    to,
    lastAcceptedAtMs,
    ports.clock.now(),
  );
  if (!verdict.ok) {
    ports.logger.log('error', `push: ${sse.event} event refused (${verdict.reason})`);
    emit({ event: 'refused', what: sse.event, reason: verdict.reason });
    return;
  }
  if (lastAcceptedAtMs === null || verdict.issuedAtMs > lastAcceptedAtMs) {
    await ports.storage.write(LAST_NOTICE_KEY, String(verdict.issuedAtMs));
  }
  const { event } = verdict;
  if (event.type === 'version') {
    // Spec: updates go to registered, enabled installations only.
    if (status() !== 'enabled') {
      ports.logger.log('warn', 'push: version event ignored: this installation is not enabled');
      return;
    }
    await updates.onVersion(event);
  } else await updates.onGiveup(event);
}
