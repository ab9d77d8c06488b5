import {
  markId,
  marksOfReport,
  rowsOfMarks,
  type FunnelMark,
} from '../../../../shared/funnel/stages';

const at = new Date('2026-11-25T10:00:00.000Z');
const A = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

test('a mark id depends on installation, APK and stage only', () => {
  expect(markId('01', A, 'offered').equals(markId('01', A, 'offered'))).toBe(true);
  expect(markId('01', A, 'offered').equals(markId('01', A, 'installed'))).toBe(false);
  expect(markId('01', A, 'offered').equals(markId('01', B, 'offered'))).toBe(false);
  expect(markId('01', A, 'offered').equals(markId('02', A, 'offered'))).toBe(false);
});

test.each([
  ['nothing reported', {}, []],
  ['a downloaded hash', { lastDownloadedMd5: B }, [[B, 'downloaded']]],
  [
    'running a hash, another downloaded',
    { installedMd5: A, lastDownloadedMd5: B },
    [
      [B, 'downloaded'],
      [A, 'installed'],
    ],
  ],
  [
    'a success outcome for another hash than the one running',
    { installedMd5: A, outcome: { md5: B, status: 'success', osStatus: 0, message: null } },
    [
      [A, 'installed'],
      [B, 'installed'],
    ],
  ],
  [
    'a success outcome for the hash running: one mark',
    { installedMd5: B, outcome: { md5: B, status: 'success', osStatus: 0, message: null } },
    [[B, 'installed']],
  ],
] as const)('marks of a report: %s', (_name, reported, expected) => {
  const marks = marksOfReport('01', reported, at);
  expect(marks.map((m) => [m.md5, m.stage])).toEqual(expected);
});

test('a failure outcome is a failed mark with the OS status and message', () => {
  const outcome = { md5: B, status: 'failure', osStatus: 3, message: 'aborted by user' } as const;
  expect(marksOfReport('01', { outcome }, at)).toEqual([
    { installation: '01', md5: B, stage: 'failed', at, osStatus: 3, message: 'aborted by user' },
  ]);
});

const t = (m: number) => new Date(Date.UTC(2026, 10, 25, 10, m));
const mark = (installation: string, stage: FunnelMark['stage'], m: number): FunnelMark => ({
  installation,
  md5: A,
  stage,
  at: t(m),
});

test('rows: one per installation, its stages, and whether more follow the page', () => {
  const marks = [
    mark('01', 'downloaded', 2),
    mark('01', 'offered', 1),
    { ...mark('02', 'failed', 5), osStatus: null, message: null },
    mark('03', 'offered', 1),
  ];
  expect(rowsOfMarks(marks, 2)).toEqual({
    rows: [
      {
        installation: '01',
        offeredAt: t(1),
        downloadedAt: t(2),
        installedAt: null,
        failedAt: null,
        failure: null,
      },
      {
        installation: '02',
        offeredAt: null,
        downloadedAt: null,
        installedAt: null,
        failedAt: t(5),
        failure: { osStatus: null, message: null },
      },
    ],
    more: true,
  });
  expect(rowsOfMarks(marks, 3).more).toBe(false);
  expect(rowsOfMarks([], 3)).toEqual({ rows: [], more: false });
});
