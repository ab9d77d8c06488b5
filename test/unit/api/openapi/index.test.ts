import { openApiDocument } from '../../../../api/openapi/index';
import type { Route } from '../../../../api/route-table';

const urls = { base: 'https://admin.test', web: 'https://web.test', push: 'https://push.test' };
const route = (over: Partial<Route> & Pick<Route, 'path'>): Route =>
  ({ method: 'get', hosts: ['admin'], access: 'public', handlers: [], ...over }) as Route;

test("a contract's route is documented from its contract, on the hosts it is mounted on", () => {
  const doc = openApiDocument(urls, [
    route({
      path: '/api/v2/things/:id',
      hosts: ['admin', 'web'],
      contract: { summary: 'A thing.', responses: { '200': { description: 'It.' } } },
    }),
  ]);
  expect(doc.paths).toEqual({
    '/api/v2/things/{id}': {
      get: {
        summary: 'A thing.',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'It.' } },
        servers: [
          { url: 'https://admin.test', description: 'admin host (PUBLIC_BASE_URL)' },
          { url: 'https://web.test', description: 'web host (PUBLIC_WEB_URL)' },
        ],
      },
    },
  });
});

test('a route with a summary alone takes its hand-written operation (the web pages)', () => {
  const doc = openApiDocument(urls, [route({ path: '/ui/login', summary: 'Log in.' })]);
  const operation = (doc.paths as Record<string, Record<string, { tags?: string[] }>>)['/ui/login'];
  expect(Object.keys(operation ?? {})).toEqual(['get']);
  expect(operation?.get?.tags).toEqual(['web']);
});

test('a route with neither a contract nor a hand-written operation is refused at build', () => {
  expect(() => openApiDocument(urls, [route({ path: '/nowhere', summary: 'Lost.' })])).toThrow(
    'no OpenAPI operation: get /nowhere',
  );
});
