/**
 * What travels on the notice channel between API processes: the notices workers publish
 * (shared/notices/append-notice.ts, naming an app), and the kicks a process publishes when a device
 * connects to it, so the others drop their stream of that installation. Pure.
 */
export type RelayMessage =
  | { readonly kind: 'kick'; readonly installationId: string; readonly processId: string }
  | { readonly kind: 'notice'; readonly appId: string };

/** The kick of `installationId` by `processId` ('owner' when its owner changed its status). */
export function kickMessage(installationId: string, processId: string): string {
  return JSON.stringify({ kind: 'kick', installationId, processId });
}

const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * A message of the channel, or null for one to ignore (a kick without its installation, anything
 * without an app). Throws on text that is not JSON.
 */
export function parseRelayMessage(message: string): RelayMessage | null {
  const m = JSON.parse(message) as Record<string, unknown> | null;
  if (m === null || typeof m !== 'object') return null;
  if (m.kind === 'kick') {
    return text(m.installationId)
      ? {
          kind: 'kick',
          installationId: m.installationId,
          processId: text(m.processId) ? m.processId : '',
        }
      : null;
  }
  return text(m.appId) ? { kind: 'notice', appId: m.appId } : null;
}
