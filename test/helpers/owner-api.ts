/**
 * The owner's JSON API (admin host, Bearer API key) as the rollout and audit tests call it;
 * `headers` ride on every request (the audit tests' X-Forwarded-For).
 */
import { request } from './http';
import type { TestStack } from './stack';

export function ownerApi(stack: TestStack, apiKey: string, headers: Record<string, string> = {}) {
  return (method: string, p: string, json?: unknown) =>
    request(`${stack.urls.admin}${p}`, {
      method,
      ...(json !== undefined ? { json } : {}),
      headers: { ...headers, authorization: `Bearer ${apiKey}` },
      ca: stack.ca,
    });
}
