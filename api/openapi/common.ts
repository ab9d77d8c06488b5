/** Building blocks shared by the per-area contracts and parts of the OpenAPI document. */
import { Type, type SchemaOptions } from '@sinclair/typebox';

export const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
} as const;

export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

export const text = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

export const json = (description: string, ref: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});

/** A required JSON request body of this schema. */
export const jsonBody = (schema: Record<string, unknown>) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** A string among `values`, documented as a JSON Schema `enum` (TypeBox's union would be `anyOf`). */
export const enumOf = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Unsafe<T>({ enum: [...values], ...options });

/** An integer query value from `min` to `max`, refused with the handlers' words. */
export const integerFrom = (name: string, min: number, max: number) =>
  Type.Integer({
    minimum: min,
    maximum: max,
    errorMessage: `${name} must be an integer from ${min} to ${max}`,
  });
