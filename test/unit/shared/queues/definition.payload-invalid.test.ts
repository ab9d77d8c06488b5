/**
 * A job payload no version of the code can read fails with the one typed error, PayloadInvalid,
 * naming the queue and what is wrong (issue 34). Payloads and texts written by hand.
 */
import { PayloadInvalid } from '../../../../shared/errors';
import { adoptionSampleQueue } from '../../../../shared/queues/adoption-sample';
import { apkIngestQueue } from '../../../../shared/queues/apk-ingest';
import { backupQueue } from '../../../../shared/queues/backup';
import { deltaGenerateQueue } from '../../../../shared/queues/delta-generate';
import { exceptionIngestQueue } from '../../../../shared/queues/exception-ingest';
import { housekeepingQueue } from '../../../../shared/queues/housekeeping';
import { rolloutHealthQueue } from '../../../../shared/queues/rollout-health';
import { webhookDeliveryQueue } from '../../../../shared/queues/webhook-delivery';

const cases: [string, (data: unknown) => unknown, unknown, string][] = [
  ['apk-ingest', (d) => apkIngestQueue.parse(d), null, 'payload must be an object'],
  ['apk-ingest', (d) => apkIngestQueue.parse(d), { uploadId: 7 }, 'uploadId must be a string'],
  ['exception-ingest', (d) => exceptionIngestQueue.parse(d), [], 'payload must be an object'],
  [
    'exception-ingest',
    (d) => exceptionIngestQueue.parse(d),
    { reportId: 'abc' },
    'malformed reportId',
  ],
  ['housekeeping', (d) => housekeepingQueue.parse(d), { task: 'rm -rf' }, 'unknown task rm -rf'],
  ['adoption-sample', (d) => adoptionSampleQueue.parse(d), { task: 'x' }, 'unknown task x'],
  ['backup', (d) => backupQueue.parse(d), { task: 'restore' }, 'unknown task restore'],
  ['rollout-health', (d) => rolloutHealthQueue.parse(d), { task: 'x' }, 'unknown task x'],
  [
    'webhook-delivery',
    (d) => webhookDeliveryQueue.parse(d),
    { deliveryId: 'nope' },
    'deliveryId must be a delivery id',
  ],
  [
    'delta-generate',
    (d) => deltaGenerateQueue.parse(d),
    { accountId: 'a', appId: 'b' },
    'bad appId',
  ],
  [
    'delta-generate',
    (d) => deltaGenerateQueue.parse(d),
    { accountId: 'a', appId: '0123456789abcdef01234567', currentVersion: '2' },
    'currentVersion must be an integer',
  ],
];

test.each(cases)('%s: case %# is refused as PayloadInvalid', (kind, parse, data, reason) => {
  expect(() => parse(data)).toThrow(PayloadInvalid);
  expect(() => parse(data)).toThrow(
    expect.objectContaining({
      code: 'PAYLOAD_INVALID',
      kind,
      reason,
      message: `${kind}: ${reason}`,
    }) as Error,
  );
});
