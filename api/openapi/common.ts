/** Building blocks shared by the per-area contracts and parts of the OpenAPI document. */
import { Type, type SchemaOptions } from '@sinclair/typebox';
import { DEVICE_HOSTS, type Host } from '../route-table';

/**
 * The hosts an operation is served on, when not the admin host alone (the document's default
 * server). index.ts turns it into the operation's `servers`; it does not appear in the document.
 */
export const onHosts = (...hosts: readonly Host[]) => ({ hosts });
/** A route devices call: on every host a device reaches (api/route-table.ts DEVICE_HOSTS). */
export const onDeviceHosts = onHosts(...DEVICE_HOSTS);
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
