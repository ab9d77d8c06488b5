import { Type } from '@sinclair/typebox';
import { requestChecker } from '../../../api/request-validation';

// Literal contracts and requests; the expected verdicts are written by hand.
const switchBody = requestChecker({
  body: Type.Object({
    deviceOnly: Type.Boolean({ errorMessage: 'deviceOnly must be true or false' }),
  }),
});

test('a body the schema accepts passes, as given', () => {
  expect(switchBody({ body: { deviceOnly: true, extra: 1 }, query: {} })).toEqual({
    ok: true,
    body: { deviceOnly: true, extra: 1 },
    query: {},
  });
});

test.each([
  ['a wrong type', { deviceOnly: 'yes' }],
  ['a missing property', {}],
  ['no body at all', undefined],
  ['a body that is not an object', ['deviceOnly']],
])("%s is refused with the failing schema's errorMessage", (_case, body) => {
  expect(switchBody({ body, query: {} })).toEqual({
    ok: false,
    message: 'deviceOnly must be true or false',
  });
});

test('a property inside allOf and a nullable integer keep their own messages', () => {
  const check = requestChecker({
    body: Type.Intersect([
      Type.Object({ sha256: Type.Optional(Type.String()) }),
      Type.Object({
        ttlSeconds: Type.Integer({ minimum: 1, maximum: 10, errorMessage: 'ttl 1 to 10' }),
        maxDownloads: Type.Optional(
          Type.Unsafe<number | null>({
            type: ['integer', 'null'],
            minimum: 1,
            errorMessage: 'max',
          }),
        ),
      }),
    ]),
  });
  expect(check({ body: { ttlSeconds: 11 }, query: {} })).toEqual({
    ok: false,
    message: 'ttl 1 to 10',
  });
  expect(check({ body: { ttlSeconds: 1.5 }, query: {} })).toEqual({
    ok: false,
    message: 'ttl 1 to 10',
  });
  expect(check({ body: { ttlSeconds: 5, maxDownloads: 0 }, query: {} })).toEqual({
    ok: false,
    message: 'max',
  });
  expect(check({ body: { ttlSeconds: 5, maxDownloads: null }, query: {} }).ok).toBe(true);
});

const days = requestChecker({
  query: Type.Object({
    days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 90, errorMessage: 'days must be 1 to 90' }),
    ),
    status: Type.Optional(
      Type.Union([Type.Literal('on'), Type.Literal('off')], {
        errorMessage: 'status must be on or off',
      }),
    ),
  }),
});

test('query integers are read from their strings, and an empty value is absent', () => {
  expect(days({ body: undefined, query: { days: '30', status: '' } })).toEqual({
    ok: true,
    body: {},
    query: { days: 30 },
  });
});

test.each([
  [{ days: '0' }, 'days must be 1 to 90'],
  [{ days: '91' }, 'days must be 1 to 90'],
  [{ days: 'seven' }, 'days must be 1 to 90'],
  [{ days: '1e1' }, 'days must be 1 to 90'],
  [{ days: ' 5' }, 'days must be 1 to 90'],
  [{ days: '5.0' }, 'days must be 1 to 90'],
  [{ days: '-1' }, 'days must be 1 to 90'],
  [{ days: ['1', '2'] }, 'days must be 1 to 90'],
  [{ status: 'maybe' }, 'status must be on or off'],
])('the query %j is refused: %s', (query, message) => {
  expect(days({ body: undefined, query })).toEqual({ ok: false, message });
});

test("a schema without errorMessage is refused with Ajv's words and where", () => {
  const check = requestChecker({ body: Type.Object({ name: Type.String({ minLength: 1 }) }) });
  expect(check({ body: { name: '' }, query: {} })).toEqual({
    ok: false,
    message: 'name must NOT have fewer than 1 characters',
  });
});
