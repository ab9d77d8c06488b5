/**
 * Issue 24, finding 8 (d): a download-link token is a bearer credential (whoever has it downloads
 * the APK), so request logs name `/d/<token>` paths with the token redacted, on every host and for
 * every sub-path (`/qr.svg`, `/qr.png`); so are invitation links (`/ui/join/<token>`, issue 20).
 */
import { randomBytes } from 'node:crypto';
import { createLogger } from '../../../shared/log';
import { eventually } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

jest.setTimeout(60_000);
const captured: string[] = [];
let stack: TestStack;

beforeAll(async () => {
  const log = createLogger('info', { role: 'test' }, { write: (l: string) => captured.push(l) });
  stack = await startStack({ workers: false, log });
});
afterAll(() => stack.close());

test('/d/<token> paths are logged with the token redacted', async () => {
  const token = randomBytes(24).toString('base64url');
  const paths = [`/d/${token}`, `/d/${token}/qr.svg`, `/d/${token}/qr.png`];
  for (const base of [stack.urls.web, stack.urls.admin]) {
    for (const p of paths) await request(`${base}${p}`, { ca: stack.ca });
  }
  const lines = () =>
    captured
      .map((l) => JSON.parse(l) as { msg?: string; path?: string })
      .filter((l) => l.msg === 'request' && l.path?.startsWith('/d/'));
  await eventually('six /d/ request log lines', () => lines().length >= 6);
  expect(lines().map((l) => l.path)).toEqual(
    [1, 2].flatMap(() => ['/d/[redacted]', '/d/[redacted]/qr.svg', '/d/[redacted]/qr.png']),
  );
  expect(captured.filter((l) => l.includes(token))).toEqual([]);
});

test('/ui/join/<token> paths are logged with the invitation token redacted (docs/teams.md)', async () => {
  const token = randomBytes(32).toString('base64url');
  await request(`${stack.urls.admin}/ui/join/${token}`, { ca: stack.ca });
  await request(`${stack.urls.admin}/ui/join/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'password=x&confirm=x&_csrf=y',
    ca: stack.ca,
  });
  const lines = () =>
    captured
      .map((l) => JSON.parse(l) as { msg?: string; path?: string })
      .filter((l) => l.msg === 'request' && l.path?.startsWith('/ui/join/'));
  await eventually('two /ui/join/ request log lines', () => lines().length >= 2);
  expect(lines().map((l) => l.path)).toEqual(['/ui/join/[redacted]', '/ui/join/[redacted]']);
  expect(captured.filter((l) => l.includes(token))).toEqual([]);
});
