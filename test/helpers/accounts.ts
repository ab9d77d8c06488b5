import { request } from './http';
import type { TestStack } from './stack';

let n = 0;

/** Signs up a fresh account through the real API and returns its API key. */
export async function newAccount(
  stack: TestStack,
  plan?: number,
): Promise<{ apiKey: string; email: string; id: string }> {
  const email = `owner${++n}-${Date.now()}@example.com`;
  const reply = await request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email, password: 'password-123' },
    ca: stack.ca,
  });
  if (reply.status !== 201) throw new Error(`sign-up failed: ${reply.status} ${reply.text}`);
  const body = reply.json<{ apiKey: string; id: string }>();
  if (plan !== undefined) {
    await stack.mongo.db
      .collection('accounts')
      .updateOne({ email }, { $set: { plan: { installations: plan } } });
  }
  return { apiKey: body.apiKey, email, id: body.id };
}
