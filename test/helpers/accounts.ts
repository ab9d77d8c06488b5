import { request } from './http';
import type { TestStack } from './stack';

let n = 0;

/**
 * A stored password hash of older scrypt parameters: RFC 7914's test vector (section 12) in
 * apkrelay's format, of the password "pleaseletmein" with N=2^14. A login with it rehashes.
 */
export const RFC7914_HASH =
  'scrypt$16384$8$1$U29kaXVtQ2hsb3JpZGU=$' +
  'cCO9yzr9c0hGHAbNgf046/2o+7qQT44+qbVD9lRdofLVQylVYT8Pz2LUlwUkKpr55h6F3A1lHkDfzwF7RVdYhw==';
export const RFC7914_PASSWORD = 'pleaseletmein';
/** A hash of the current parameters (N=2^17, r=8, p=1), in apkrelay's format. */
export const CURRENT_HASH = /^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/;

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
