/** What the audit tests read and send: an entry of `GET /api/v2/audit`, a web form post. */
import { request } from './http';
import type { TestStack } from './stack';

export interface AuditEntry {
  id: string;
  at: string;
  action: string;
  actor: { kind: string; id: string; name: string };
  resource: { kind: string; id: string };
  address: string | null;
  details: Record<string, unknown>;
}

/** Posts a web form (with the session's CSRF token) from `address`; answers the status. */
export function webForm(
  stack: TestStack,
  session: { readonly cookie: string; readonly csrf: string },
  address: string,
) {
  return async (path: string, form: Record<string, string> = {}): Promise<number> => {
    const r = await request(`${stack.urls.admin}${path}`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        'x-forwarded-for': address,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ ...form, _csrf: session.csrf }).toString(),
      ca: stack.ca,
    });
    return r.status;
  };
}
