/**
 * The OpenAPI operation of a route with a contract (api/route-contract.ts), derived: the summary,
 * a parameter per path segment and per property of the query schema, the JSON body's schema as
 * the request body (unless the contract documents a wider one), then the contract's own fields. `errorMessage` (the validation's refusal
 * text) is not OpenAPI and is left out.
 */
import type { TObject } from '@sinclair/typebox';
import type { RouteContract } from '../route-contract';

type Json = Record<string, unknown>;

/** The schema as plain JSON, without the validation's `errorMessage`s. */
export function documentedSchema(schema: object): Json {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => (key === 'errorMessage' ? undefined : value)),
  ) as Json;
}

/** One `in: path` parameter per `:name` of an Express path, unless the contract documents it. */
function pathParameters(expressPath: string, documented: readonly unknown[]): Json[] {
  const named = new Set(documented.map((p) => (p as { name?: string }).name));
  return [...expressPath.matchAll(/:([A-Za-z0-9_]+)/g)]
    .map((m) => m[1])
    .filter((name) => !named.has(name))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/** One `in: query` parameter per property; a property's description becomes the parameter's. */
function queryParameters(query: TObject | undefined): Json[] {
  if (!query) return [];
  const required = new Set(query.required ?? []);
  return Object.entries(documentedSchema(query).properties as Record<string, Json>).map(
    ([name, { description, ...schema }]) => ({
      name,
      in: 'query',
      ...(required.has(name) ? { required: true } : {}),
      ...(description === undefined ? {} : { description }),
      schema,
    }),
  );
}

export function operationOf(path: string, contract: RouteContract): Json {
  const { summary, body, query, parameters: documented = [], ...doc } = contract;
  const parameters = [
    ...pathParameters(path, documented),
    ...queryParameters(query),
    ...documented,
  ];
  return {
    summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: jsonRequestBody(body) } : {}),
    // A body the use-case reads beyond what the route checks documents itself (`requestBody`).
    ...doc,
  };
}

function jsonRequestBody(body: object): Json {
  return { required: true, content: { 'application/json': { schema: documentedSchema(body) } } };
}
