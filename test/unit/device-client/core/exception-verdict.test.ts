import { judgeReportReply } from '../../../../device-client/core/exception-verdict';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const reply = (status: number, text: string, headers: Record<string, string> = {}) => ({
  status,
  text,
  headers,
});

test.each([
  ['a bare 503 with Retry-After in seconds', reply(503, '', { 'retry-after': '7' }), 7_000],
  [
    'a bare 429 with an HTTP date',
    reply(429, 'slow down', { 'retry-after': 'Thu, 26 Nov 2026 10:00:30 GMT' }),
    30_000,
  ],
  ['a 408 without Retry-After', reply(408, ''), null],
  ['a 500 whose body is JSON but no verdict', reply(500, '{"error":{"code":"X"}}'), null],
])('%s: retry later', (_, r, retryAfterMs) => {
  expect(judgeReportReply(r, NOW)).toEqual({
    kind: 'retry',
    reason: `HTTP ${r.status}`,
    retryAfterMs,
  });
});

test('REGISTERED with budget left: final, nothing held', () => {
  const body = '{"status":"REGISTERED","reportId":"r1","budget":{"remaining":3,"freesAt":null}}';
  expect(judgeReportReply(reply(202, body), NOW)).toEqual({
    kind: 'final',
    status: 'REGISTERED',
    reason: null,
    message: '',
    holdMs: null,
    holdUntil: null,
  });
});

test('LOST over the 24 h limit (429 with a verdict) holds the rest until the budget frees', () => {
  const body = JSON.stringify({
    status: 'LOST',
    reason: 'LIMIT',
    message: 'The application X has exceeded the 24H sending limit.',
    budget: { remaining: 0, freesAt: '2026-11-26T11:00:00Z' },
  });
  expect(judgeReportReply(reply(429, body), NOW)).toEqual({
    kind: 'final',
    status: 'LOST',
    reason: 'LIMIT',
    message: 'The application X has exceeded the 24H sending limit.',
    holdMs: 3_600_000,
    holdUntil: '2026-11-26T11:00:00Z',
  });
});

test('a spent budget that already freed holds nothing', () => {
  const body = '{"status":"REGISTERED","budget":{"remaining":0,"freesAt":"2026-11-26T09:59:00Z"}}';
  expect(judgeReportReply(reply(202, body), NOW)).toMatchObject({ holdMs: null, holdUntil: null });
});

test.each([
  [
    'an error code and message',
    reply(403, '{"error":{"code":"EXCEPTION_INSTALLATION_UNKNOWN","message":"Not registered."}}'),
    'EXCEPTION_INSTALLATION_UNKNOWN',
    'Not registered.',
  ],
  ['a body that is not JSON', reply(400, 'Bad Request'), 'HTTP 400', ''],
  ['JSON null', reply(400, 'null'), 'HTTP 400', ''],
  ['REGISTERED with a non-2xx status', reply(400, '{"status":"REGISTERED"}'), 'HTTP 400', ''],
])('LOST from %s', (_, r, reason, message) => {
  expect(judgeReportReply(r, NOW)).toEqual({
    kind: 'final',
    status: 'LOST',
    reason,
    message,
    holdMs: null,
    holdUntil: null,
  });
});
