/** The owner's JSON API (admin host, Bearer API key) as the rollout tests call it. */
import { request } from './http';
import type { TestStack } from './stack';

export function ownerApi(stack: TestStack, apiKey: string) {
  return (method: string, p: string, json?: unknown) =>
    request(`${stack.urls.admin}${p}`, {
      method,
      ...(json !== undefined ? { json } : {}),
      headers: { authorization: `Bearer ${apiKey}` },
      ca: stack.ca,
    });
}
