/**
 * One contract per route (issue 34): its summary, its request schemas and the rest of its OpenAPI
 * operation, declared once beside its handlers. The schemas are TypeBox, that is plain JSON
 * Schema, so both the request validation (request-validation.ts) and the OpenAPI document
 * (openapi/operation.ts) are derived from the same objects and cannot drift apart.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';

/**
 * A route's contract: its summary, its request schemas, and its OpenAPI operation's own fields
 * besides those derived from the route (summary, servers, path parameters) and the schemas (query
 * parameters, JSON request body): responses, and where needed description, security, tags,
 * `parameters` (headers, path parameters with a schema of their own, and parameters documented but
 * checked by the use-case: appended after the derived ones) and `requestBody` (forms, uploads, and
 * bodies a use-case checks itself, for the web forms too).
 */
export interface RouteContract<B extends TSchema = TSchema, Q extends TObject = TObject> {
  readonly summary: string;
  /**
   * The JSON body: checked after authentication, before the handler (400 VALIDATION_FAILED), and
   * documented as the required `application/json` request body. A schema's `errorMessage` is the
   * refusal's message when that schema fails.
   */
  readonly body?: B;
  /** The query: each property one `in: query` parameter, checked like the body (an empty value is absent). */
  readonly query?: Q;
  readonly responses: Readonly<Record<string, unknown>>;
  readonly parameters?: readonly unknown[];
  readonly [field: string]: unknown;
}

/** A contract, its schemas' types kept for `inputOf`. */
export function contract<B extends TSchema = TSchema, Q extends TObject = TObject>(
  c: RouteContract<B, Q>,
): RouteContract<B, Q> {
  return c;
}

/** The checked request of a contract: what its handler reads instead of `req.body`/`req.query`. */
export interface ContractInput<B extends TSchema, Q extends TObject> {
  readonly body: Static<B>;
  readonly query: Static<Q>;
}
