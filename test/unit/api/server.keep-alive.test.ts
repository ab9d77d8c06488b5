/**
 * Issue 33 (`topology`: one of 100 SSE streams through nginx ended before its first event): a
 * proxy that keeps an idle upstream connection longer than the API does may send a request on a
 * connection the API is closing. nginx's upstream `keepalive_timeout` is 60 s unless set
 * (nginx's documentation, ngx_http_upstream_module); each upstream of ops/deploy's nginx template
 * must set one below the API's keep-alive timeout.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../../api/server';

const TEMPLATE = path.resolve(__dirname, '../../../ops/deploy/nginx/apkrelay.conf.in');
const NGINX_DEFAULT_UPSTREAM_KEEPALIVE_S = 60;

/** Each upstream block's name and its idle keep-alive time in seconds (nginx's default if unset). */
function upstreamKeepAlive(conf: string): Array<[string, number]> {
  return [...conf.matchAll(/^upstream (\S+) \{([^}]*)\}/gm)].map(([, name, body]) => {
    const set = /^\s*keepalive_timeout (\d+)s;/m.exec(body!);
    return [name!, set ? Number(set[1]) : NGINX_DEFAULT_UPSTREAM_KEEPALIVE_S];
  });
}

test('reads the template: three upstreams', () => {
  expect(upstreamKeepAlive(readFileSync(TEMPLATE, 'utf8')).map(([name]) => name)).toEqual([
    'apkrelay_admin',
    'apkrelay_web',
    'apkrelay_push',
  ]);
});

test("nginx lets go of an idle connection before the API closes it (the API's 5 s)", () => {
  expect(KEEP_ALIVE_TIMEOUT_MS).toBe(5_000);
  const tooLong = upstreamKeepAlive(readFileSync(TEMPLATE, 'utf8')).filter(
    ([, seconds]) => seconds * 1000 >= KEEP_ALIVE_TIMEOUT_MS,
  );
  expect(tooLong).toEqual([]);
});
