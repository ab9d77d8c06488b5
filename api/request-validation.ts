/**
 * The request validation derived from a route's contract (route-contract.ts): Ajv compiles the
 * contract's body and query schemas once, when the route is built; the check runs after the
 * route's authentication and before its handler, and refuses with 400 VALIDATION_FAILED whose
 * message is the failing schema's `errorMessage`. The verdict is pure (`checkRequest`); the
 * middleware is the edge that reads the request and keeps the checked input for the handler.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { RequestHandler, Response } from 'express';
import { AppError } from '../shared/errors';
import type { ContractInput, RouteContract } from './route-contract';

/** Formats (email, date-time) document; the use-cases check the values themselves. */
const options = { allErrors: false, verbose: true, validateFormats: false } as const;
const ajv = new Ajv(options);
ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });

export type RequestVerdict =
  | { readonly ok: true; readonly body: unknown; readonly query: Record<string, unknown> }
  | { readonly ok: false; readonly message: string };

interface RawRequest {
  readonly body: unknown;
  readonly query: Readonly<Record<string, unknown>>;
}

type Schema = { readonly errorMessage?: string; readonly properties?: Record<string, Schema> };

/** The message of the first failure: the failing schema's own `errorMessage`, else Ajv's. */
export function failureMessage(errors: readonly ErrorObject[], whole: string): string {
  for (const error of errors) {
    const parent = error.parentSchema as Schema | undefined;
    const own =
      error.keyword === 'required'
        ? parent?.properties?.[(error.params as { missingProperty: string }).missingProperty]
        : parent;
    if (own?.errorMessage) return own.errorMessage;
  }
  const first = errors[0];
  const where = first?.instancePath.slice(1).replaceAll('/', '.') || whole;
  return `${where} ${first?.message ?? 'is not valid'}`;
}

/** A body that is not a JSON object has no fields, as the handlers always read it. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The query as its schema reads it: an empty value is absent (`?days=` means the default, as it
 * always has), and an integer property written in digits alone is that number; any other
 * spelling (`1e1`, ` 5`) stays a string, which the schema refuses, as the handlers did.
 */
function queryReader(query: TObject | undefined) {
  const integers = new Set(
    Object.entries(query?.properties ?? {})
      .filter(([, schema]) => (schema as { type?: unknown }).type === 'integer')
      .map(([name]) => name),
  );
  return (raw: Readonly<Record<string, unknown>>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(raw)
        .filter(([, value]) => value !== '')
        .map(([name, value]) => [
          name,
          integers.has(name) && typeof value === 'string' && /^\d+$/.test(value)
            ? Number(value)
            : value,
        ]),
    );
}

/** The pure check of a contract's request: the verdict on one request's body and query. */
export function requestChecker(
  contract: Pick<RouteContract, 'body' | 'query'>,
): (request: RawRequest) => RequestVerdict {
  const body: ValidateFunction | null = contract.body ? ajv.compile(contract.body) : null;
  const query: ValidateFunction | null = contract.query ? ajv.compile(contract.query) : null;
  const readQuery = queryReader(contract.query);
  return (request) => {
    const given = isRecord(request.body) ? request.body : {};
    if (body && !body(given))
      return { ok: false, message: failureMessage(body.errors ?? [], 'the body') };
    const asked = readQuery(request.query);
    if (query && !query(asked)) {
      return { ok: false, message: failureMessage(query.errors ?? [], 'the query') };
    }
    return { ok: true, body: given, query: asked };
  };
}

const INPUT = Symbol('contract input');

/** The middleware checking a contract's request; null when the contract declares no schema. */
export function validateRequest(contract: RouteContract): RequestHandler | null {
  if (!contract.body && !contract.query) return null;
  const check = requestChecker(contract);
  return (req, res, next) => {
    const verdict = check({ body: req.body as unknown, query: req.query });
    if (!verdict.ok) throw new AppError('VALIDATION_FAILED', { message: verdict.message });
    (res.locals as Record<symbol, unknown>)[INPUT] = verdict;
    next();
  };
}

/** The request as its contract checked it (the query's integers read, empty values dropped). */
export function inputOf<B extends TSchema, Q extends TObject>(
  _contract: RouteContract<B, Q>,
  res: Response,
): ContractInput<B, Q> {
  const input = (res.locals as Record<symbol, unknown>)[INPUT];
  if (!input) throw new AppError('INTERNAL', { message: 'the route has no checked input' });
  return input as ContractInput<B, Q>;
}
