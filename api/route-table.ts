/**
 * The route table: every HTTP route of every host, as data. Hosts mount their routes from it, the
 * OpenAPI test compares it with the published document, and the access-control tests enumerate it,
 * so a route cannot be added without being seen by all three.
 */
import type { RequestHandler } from 'express';
import type { RouteContract } from './route-contract';

export type Host = 'admin' | 'web' | 'push';
/**
 * The hosts of a route devices call (registration, heartbeat, push key, download, metadata,
 * exception reports). A fleet behind a firewall may reach only port 443 of the web and push hosts
 * (spec section 8; PushLink's SDK sends downloads and exceptions to one HTTP host), so each of
 * these is on both, and on admin as before. The push stream stays on the push host alone: it is
 * the push channel, and registration names it (`streamUrl`).
 */
export const DEVICE_HOSTS: readonly Host[] = ['admin', 'web', 'push'];
export type Method = 'get' | 'post' | 'put' | 'delete';
/**
 * Who may call a route: anyone, an account authenticated by its API key, an account with the
 * `operator` role (API key), a scraper holding METRICS_TOKEN, or a signed-in web session
 * (cookie; its forms also carry a CSRF token).
 */
export type Access = 'public' | 'apiKey' | 'operator' | 'metricsToken' | 'session';

export interface Route {
  readonly method: Method;
  /** Express path syntax (`/api/v2/apps/:package`); OpenAPI uses `{package}`. */
  readonly path: string;
  readonly hosts: readonly Host[];
  readonly access: Access;
  /** Largest JSON body this route accepts, when above the API's default (64 KB). */
  readonly jsonLimit?: number;
  /**
   * The authentication first, the route's work last: its contract's request check runs
   * between them.
   */
  readonly handlers: readonly RequestHandler[];
  /**
   * Its summary, request schemas and OpenAPI operation (route-contract.ts): the request check and
   * the document's operation are derived from it.
   */
  readonly contract: RouteContract;
}

export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
