import { Type } from '@sinclair/typebox';
import { operationOf } from '../../../../api/openapi/operation';

// A literal contract and the OpenAPI operation written out by hand.
test('a contract becomes its operation: path and query parameters, the JSON body, its own fields', () => {
  const operation = operationOf('/api/v2/apps/:package/things/:id', {
    summary: 'A thing.',
    query: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, errorMessage: 'limit must be positive' })),
      q: Type.Optional(Type.String({ description: 'A prefix.' })),
      mode: Type.Union([Type.Literal('a'), Type.Literal('b')]),
    }),
    body: Type.Object({ on: Type.Boolean({ errorMessage: 'on must be true or false' }) }),
    security: [{ apiKey: [] }],
    parameters: [{ name: 'Range', in: 'header', schema: { type: 'string' } }],
    responses: { '200': { description: 'The thing.' } },
  });
  expect(operation).toEqual({
    summary: 'A thing.',
    security: [{ apiKey: [] }],
    parameters: [
      { name: 'package', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
      { name: 'q', in: 'query', description: 'A prefix.', schema: { type: 'string' } },
      {
        name: 'mode',
        in: 'query',
        required: true,
        schema: {
          anyOf: [
            { const: 'a', type: 'string' },
            { const: 'b', type: 'string' },
          ],
        },
      },
      { name: 'Range', in: 'header', schema: { type: 'string' } },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { type: 'object', required: ['on'], properties: { on: { type: 'boolean' } } },
        },
      },
    },
    responses: { '200': { description: 'The thing.' } },
  });
});

test('a path parameter the contract documents itself is not derived a second time', () => {
  const action = { name: 'action', in: 'path', required: true, schema: { enum: ['go', 'stop'] } };
  const operation = operationOf('/x/:package/:action', {
    summary: 'Act.',
    parameters: [action],
    responses: {},
  });
  expect(operation).toEqual({
    summary: 'Act.',
    parameters: [
      { name: 'package', in: 'path', required: true, schema: { type: 'string' } },
      action,
    ],
    responses: {},
  });
});

test('a contract with neither parameters nor body has neither in its operation', () => {
  expect(operationOf('/healthz', { summary: 'Alive.', responses: {} })).toEqual({
    summary: 'Alive.',
    responses: {},
  });
});

test("a contract's own requestBody documents the body beyond the checked part", () => {
  const requestBody = { required: true, content: { 'application/json': { schema: {} } } };
  const operation = operationOf('/x', {
    summary: 'Both.',
    body: Type.Object({ n: Type.Integer() }),
    requestBody,
    responses: {},
  });
  expect(operation).toEqual({ summary: 'Both.', requestBody, responses: {} });
});
