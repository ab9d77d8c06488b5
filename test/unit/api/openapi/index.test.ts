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
