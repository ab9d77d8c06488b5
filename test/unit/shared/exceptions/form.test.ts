import { parseExceptionForm } from '../../../../shared/exceptions/form';
import {
  ReportInvalid,
  reportDigest,
  validateReport,
  MAX_LOG_LINES,
} from '../../../../shared/exceptions/report';

const BODY =
  'st%5B%5D=java.lang.IllegalStateException%3A+boom&userInfo1%5B%5D=plan&' +
  'lc%5B%5D=11-20+10%3A00%3A00.000+E%2FApp%3A+first&api_key=ak_secret&' +
  'st%5B%5D=%09at+a.B.c%28B.java%3A12%29&userInfo0%5B%5D=user.id&package=com.shop&' +
  'userInfo1%5B%5D=%24gold&lc[]=second+%2B+more&hash=ABCDEF0123456789ABCDEF0123456789&' +
  'userInfo0%5B%5D=42&deviceId=dev-1&handled=true&screen=%2F9j%2F4AAQ%0ASkZJRg%3D%3D';

test('parses the PushLink form in any order, repeated st[]/lc[], userInfo pairs by index', () => {
  const { apiKey, fields } = parseExceptionForm(BODY);
  expect(apiKey).toBe('ak_secret');
  expect(fields).toEqual({
    package: 'com.shop',
    hash: 'ABCDEF0123456789ABCDEF0123456789',
    deviceId: 'dev-1',
    stack: ['java.lang.IllegalStateException: boom', '\tat a.B.c(B.java:12)'],
    log: ['11-20 10:00:00.000 E/App: first', 'second + more'],
    metadata: [
      { key: 'user.id', value: '42' },
      { key: 'plan', value: '$gold' },
    ],
    extra: [],
    screen: '/9j/4AAQ\nSkZJRg==',
    handled: 'true',
  });
  const report = validateReport(fields);
  expect(report.hash).toBe('abcdef0123456789abcdef0123456789');
  expect(report.screen).toBe('/9j/4AAQSkZJRg==');
  expect(report.handled).toBe(true);
});

test('the API key never becomes part of the report', () => {
  const report = validateReport(parseExceptionForm(BODY).fields);
  expect(JSON.stringify(report)).not.toContain('ak_secret');
});

test('missing fields are all reported at once', () => {
  const { fields } = parseExceptionForm('api_key=x&handled=maybe&screen=***');
  try {
    validateReport(fields);
    throw new Error('expected ReportInvalid');
  } catch (err) {
    expect(err).toBeInstanceOf(ReportInvalid);
    expect((err as ReportInvalid).problems).toEqual([
      'package is missing or invalid',
      'hash is missing or invalid',
      'deviceId is missing',
      'the stack trace (st[]) is empty',
      'screen is not base64',
      'handled must be true or false',
    ]);
  }
});

test('handled defaults to false; only the last 200 log lines are kept', () => {
  const log = Array.from({ length: 250 }, (_, i) => `line ${i}`);
  const body = ['package=a.b', 'hash=h', 'deviceId=d', 'st[]=E', ...log.map((l) => `lc[]=${l}`)];
  const report = validateReport(parseExceptionForm(body.join('&')).fields);
  expect(report.handled).toBe(false);
  expect(report.log).toHaveLength(MAX_LOG_LINES);
  expect(report.log[0]).toBe('line 50');
});

test('the digest is the same for the same content and differs for any field', () => {
  const base = validateReport(parseExceptionForm(BODY).fields);
  expect(reportDigest(base)).toBe(reportDigest(validateReport(parseExceptionForm(BODY).fields)));
  expect(reportDigest({ ...base, deviceId: 'dev-2' })).not.toBe(reportDigest(base));
  expect(reportDigest({ ...base, log: [...base.log, 'x'] })).not.toBe(reportDigest(base));
  // Length prefixes: moving text across a boundary changes the digest.
  expect(reportDigest({ ...base, stack: ['ab', 'c'] })).not.toBe(
    reportDigest({ ...base, stack: ['a', 'bc'] }),
  );
});
