/**
 * Signing a delivery (docs/webhooks.md): HMAC-SHA256 under the endpoint's secret over
 * `<timestamp>.<body>`, the timestamp (Unix seconds) in `Apkrelay-Timestamp`, the signature as
 * `v1=<hex>` in `Apkrelay-Signature`. A receiver recomputes it and refuses timestamps outside
 * its tolerance window, so a captured delivery cannot be replayed later.
 */
import { createHmac } from 'node:crypto';

export const TIMESTAMP_HEADER = 'apkrelay-timestamp';
export const SIGNATURE_HEADER = 'apkrelay-signature';

export function signDelivery(
  secret: string,
  body: string,
  at: Date,
): { readonly timestamp: string; readonly signature: string } {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return { timestamp, signature: `v1=${mac}` };
}
