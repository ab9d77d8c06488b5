import { toOpenApiPath, type Host } from '../../../api/route-table';
import { request } from '../../helpers/http';
import { routeTable } from '../../helpers/route-table';
import { startStack, type TestStack } from '../../helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false });
});
afterAll(() => stack.close());

interface Doc {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; servers?: Array<{ url: string }> }>
  >;
}

test('the served OpenAPI document lists exactly the routes of the route table', async () => {
  const reply = await request(`${stack.urls.admin}/api/v2/openapi.json`, { ca: stack.ca });
  expect(reply.status).toBe(200);
  const doc = reply.json<Doc>();
  expect(doc.openapi).toBe('3.1.0');

  const routes = routeTable();
  const fromTable = routes.map((r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.path)}`).sort();
  const fromDoc = Object.entries(doc.paths)
    .flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`))
    .sort();
  expect(fromDoc).toEqual(fromTable);
});

test('every operation is documented on exactly the hosts the route table mounts it on', async () => {
  const doc = (
    await request(`${stack.urls.admin}/api/v2/openapi.json`, { ca: stack.ca })
  ).json<Doc>();
  const hostOf = new Map(Object.entries(stack.urls).map(([h, url]) => [url, h as Host]));
  const hosts = (servers: Array<{ url: string }>) =>
    servers.map((s) => hostOf.get(s.url) ?? s.url).sort();
  const fromDoc = Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(
      ([m, op]) => `${m.toUpperCase()} ${p} @${hosts(op.servers ?? doc.servers).join(',')}`,
    ),
  );
  const fromTable = routeTable().map(
    (r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.path)} @${[...r.hosts].sort().join(',')}`,
  );
  expect(fromDoc.sort()).toEqual(fromTable.sort());
  // The device routes are on the web and push hosts (spec section 8: devices reach only those).
  for (const op of ['POST /exception', 'POST /api/v2/exceptions', 'GET /download']) {
    expect(fromDoc).toContain(`${op} @admin,push,web`);
  }
});

test('every status sign-up really produces (201, 400, 409) is documented', async () => {
  const doc = (
    await request(`${stack.urls.admin}/api/v2/openapi.json`, { ca: stack.ca })
  ).json<Doc>();
  const documented = Object.keys(doc.paths['/api/v2/accounts']?.post?.responses ?? {});
  const created = await request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'doc@example.com', password: 'password-1' },
    ca: stack.ca,
  });
  const bad = await request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: {},
    ca: stack.ca,
  });
  const taken = await request(`${stack.urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'doc@example.com', password: 'password-1' },
    ca: stack.ca,
  });
  for (const status of [created.status, bad.status, taken.status]) {
    expect(documented).toContain(String(status));
  }
});
