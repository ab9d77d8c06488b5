/**
 * Parts of the access matrix's world (world.ts) for issue 20: A's device keys and CI tokens, its
 * webhook delivery and an audit entry; and `must`, the world's check of each setup reply.
 */
import { eventuallyValue } from '../../helpers/eventually';
import { request, type Reply } from '../../helpers/http';
import type { TestStack } from '../../helpers/stack';

export function must(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text.slice(0, 300)}`);
  }
  return reply;
}

/** A's device key and CI token of `pkg`, a CI token of another package, a spare device key's id. */
export async function keysOf(stack: TestStack, apiKey: string, pkg: string) {
  const keyOf = async (kind: string, apps: string[]) =>
    must(
      await request(`${stack.urls.admin}/api/v2/account/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        json: { kind, name: `matrix ${kind}`, apps },
        ca: stack.ca,
      }),
      201,
      `${kind} of A`,
    ).json<{ id: string; secret: string }>();
  return {
    deviceKey: (await keyOf('device-key', [pkg])).secret,
    ciToken: (await keyOf('ci-token', [pkg])).secret,
    ciOther: (await keyOf('ci-token', ['dev.apkrelay.elsewhere'])).secret,
    spareKeyId: (await keyOf('device-key', [pkg])).id,
  };
}

/** The delivery of A's rollout.started event (queued when the rollout started), an audit entry. */
export async function webhookAndAuditOf(stack: TestStack, apiKey: string, webhookId: string) {
  const headers = { authorization: `Bearer ${apiKey}` };
  const deliveryId = await eventuallyValue(
    'the delivery of A’s rollout.started',
    async () =>
      (
        await request(`${stack.urls.admin}/api/v2/webhooks/${webhookId}/deliveries`, {
          headers,
          ca: stack.ca,
        })
      ).json<{ deliveries: Array<{ id: string }> }>().deliveries[0]?.id,
    (id) => id !== undefined,
  );
  const audit = await request(`${stack.urls.admin}/api/v2/audit?limit=1`, {
    headers,
    ca: stack.ca,
  });
  const auditId = must(audit, 200, 'audit log of A').json<{ entries: Array<{ id: string }> }>()
    .entries[0]!.id;
  return { deliveryId: deliveryId!, auditId };
}
