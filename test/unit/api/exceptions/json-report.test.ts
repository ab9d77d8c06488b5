import { jsonReportFields } from '../../../../api/exceptions/json-report';
import { ReportInvalid, validateReport } from '../../../../shared/exceptions/report';
import { exceptionIngestQueue } from '../../../../shared/queues/exception-ingest';

const payload = {
  reportId: `${'a'.repeat(32)}-1767225600000`,
  accountId: 'acc',
  appId: 'app',
  apkId: 'apk',
  version: '1.0 (1)',
  admittedAt: 1767225600000,
  report: {
    package: 'com.shop',
    hash: 'h',
    deviceId: 'd',
    stack: ['E'],
    log: [],
    metadata: [{ key: 'a.b', value: '1' }],
    extra: [],
    screen: null,
    handled: false,
  },
};

test('exception-ingest payloads read back from Redis are validated; the job id is the report id', () => {
  expect(exceptionIngestQueue.parse(payload)).toEqual(payload);
  expect(exceptionIngestQueue.jobId!(payload)).toBe(`exc-${payload.reportId}`);
  expect(() => exceptionIngestQueue.parse({ ...payload, reportId: '1' })).toThrow(/reportId/);
  expect(() =>
    exceptionIngestQueue.parse({ ...payload, report: { ...payload.report, stack: [1] } }),
  ).toThrow(/stack/);
  expect(() =>
    exceptionIngestQueue.parse({ ...payload, report: { ...payload.report, metadata: [{}] } }),
  ).toThrow(/metadata/);
  expect(() => exceptionIngestQueue.parse({ ...payload, admittedAt: 'now' })).toThrow(/admittedAt/);
});

test('the JSON body accepts metadata as a list or an object; wrong types are reported', () => {
  const fields = jsonReportFields({
    package: 'com.shop',
    hash: 'ABC',
    deviceId: 'd',
    stack: ['E', '\tat a.B.c(B.java:1)'],
    metadata: { 'user.id': '7', $role: 'admin' },
    extra: [{ key: 'k', value: 'v' }],
    handled: true,
  });
  expect(validateReport(fields)).toMatchObject({
    hash: 'abc',
    handled: true,
    metadata: [
      { key: 'user.id', value: '7' },
      { key: '$role', value: 'admin' },
    ],
    extra: [{ key: 'k', value: 'v' }],
    screen: null,
    log: [],
  });
  expect(() => jsonReportFields({ stack: 'x', metadata: [1], handled: 'yes' })).toThrow(
    ReportInvalid,
  );
  expect(() => jsonReportFields([])).toThrow(/JSON object/);
  expect(() =>
    validateReport(
      jsonReportFields({ package: 'a.b', hash: 'h', deviceId: 'd', stack: ['E'], handled: 'yes' }),
    ),
  ).toThrow(/handled/);
});
