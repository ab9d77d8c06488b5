import { rolloutFormBody } from '../../../../api/rollouts/web-form';

const SHA = 'ab'.repeat(32);

test('an empty form: the APK only (default stages, no targeting)', () => {
  expect(rolloutFormBody({ sha256: SHA, stages: '', metadataKey: '', deviceIds: '' })).toEqual({
    sha256: SHA,
  });
});

test('stages are split on commas and read as numbers', () => {
  expect(rolloutFormBody({ sha256: SHA, stages: ' 1, 5,25 ,100 ' })).toEqual({
    sha256: SHA,
    stages: [1, 5, 25, 100],
  });
  expect(rolloutFormBody({ sha256: SHA, stages: '0.5,100' }).stages).toEqual([0.5, 100]);
});

test('a stage that is not a number is passed on as typed, for the validation to refuse', () => {
  expect(rolloutFormBody({ sha256: SHA, stages: '5, half, 100' }).stages).toEqual([5, 'half', 100]);
  expect(rolloutFormBody({ sha256: SHA, stages: '-5,100' }).stages).toEqual(['-5', 100]);
});

test('metadata targeting: a key and its comma-separated values', () => {
  expect(
    rolloutFormBody({ sha256: SHA, metadataKey: ' store ', metadataValues: 'north, south ,,' }),
  ).toEqual({ sha256: SHA, targeting: { metadata: { key: 'store', values: ['north', 'south'] } } });
});

test('a key without values is passed on (the validation asks for one)', () => {
  expect(rolloutFormBody({ sha256: SHA, metadataKey: 'store', metadataValues: '' })).toEqual({
    sha256: SHA,
    targeting: { metadata: { key: 'store', values: [] } },
  });
});

test('values without a key are ignored', () => {
  expect(rolloutFormBody({ sha256: SHA, metadataValues: 'north' })).toEqual({ sha256: SHA });
});

test('device ids: one per line, or separated by spaces or commas', () => {
  expect(rolloutFormBody({ sha256: SHA, deviceIds: 'till-1\r\ntill-2, till-3  till-4\n' })).toEqual(
    { sha256: SHA, targeting: { deviceIds: ['till-1', 'till-2', 'till-3', 'till-4'] } },
  );
});

test('both kinds of targeting together', () => {
  expect(
    rolloutFormBody({
      sha256: SHA,
      stages: '10,100',
      metadataKey: 'store',
      metadataValues: 'north',
      deviceIds: 'till-9',
    }),
  ).toEqual({
    sha256: SHA,
    stages: [10, 100],
    targeting: { metadata: { key: 'store', values: ['north'] }, deviceIds: ['till-9'] },
  });
});

test('fields that are not strings count as empty', () => {
  expect(rolloutFormBody({ sha256: SHA, stages: ['1'], deviceIds: 5, metadataKey: {} })).toEqual({
    sha256: SHA,
  });
});
