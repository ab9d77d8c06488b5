/** The Rollouts tab's rendering: the numbers as written, the buttons per state, escaping. */
import { ObjectId } from 'mongodb';
import type { AppDoc } from '../../../../shared/catalog/types';
import type { PresentedRollout } from '../../../../shared/rollouts/present';
import { rolloutsTab } from '../../../../api/rollouts/web-views';
import { viewerAs } from '../../../helpers/web-views';

const viewer = viewerAs('owner', 'csrf-token');
const app = { _id: new ObjectId(), accountId: 'a1', package: 'dev.apkrelay.sample' } as AppDoc;
const T = '2026-11-25T12:00:00.000Z';
const apk = { versionName: '2.0', versionCode: 2, md5: 'b'.repeat(32) } as PresentedRollout['apk'];

function rollout(state: PresentedRollout['state'], history: PresentedRollout['history']) {
  return {
    state,
    percent: state === 'halted' ? 0 : 5,
    stages: [5, 100],
    stageIndex: 0,
    apk,
    previous: null,
    targeting: { metadata: { key: 'store', values: ['<north>'] }, deviceIds: [] },
    installed: 3,
    startedAt: T,
    stageStartedAt: T,
    updatedAt: T,
    health: { since: T, lastEvaluatedAt: null, newHours: 0, oldHours: 0, last: null },
    history,
  } as unknown as PresentedRollout;
}

const halt = {
  at: T,
  action: 'halt',
  by: 'health-gate' as const,
  from: 'running' as const,
  to: 'halted' as const,
  percent: 0,
  health: {
    verdict: 'halt' as const,
    newCount: 100,
    newHours: 0.5,
    oldCount: 20,
    oldHours: 0.5,
    ratio: 5,
    pValue: 0.0000123,
  },
};

const page = (r: PresentedRollout | null) =>
  rolloutsTab(viewer, app, { rollout: r, funnel: null, apks: [] });
const cell = (html: string, name: string) =>
  new RegExp(`data-field="${name}">([^<]*)<`).exec(html)?.[1];

test('a halt by the gate: its numbers, rates per installation-hour, ratio and p-value', () => {
  const out = page(rollout('halted', [halt]));
  expect(out).toContain('data-action="halt" data-by="health-gate"');
  expect(cell(out, 'newCount')).toBe('100');
  expect(cell(out, 'newHours')).toBe('0.5000');
  expect(cell(out, 'newRate')).toBe('200');
  expect(cell(out, 'oldRate')).toBe('40');
  expect(cell(out, 'ratio')).toBe('5.00');
  expect(cell(out, 'pValue')).toBe('1.23e-5');
  expect(cell(out, 'installed')).toBe('3');
});

test('the buttons are the actions the state allows, each a form with the CSRF token', () => {
  const buttons = (out: string) =>
    [...out.matchAll(/<button type="submit">(\w+)<\/button>/g)].map((m) => m[1]);
  expect(buttons(page(rollout('running', [])))).toEqual(['Pause', 'Advance', 'Complete', 'Halt']);
  expect(buttons(page(rollout('paused', [])))).toEqual(['Resume', 'Complete', 'Halt']);
  // Halted: no action, the start form instead (no APK to offer here).
  const halted = page(rollout('halted', []));
  expect(buttons(halted)).toEqual([]);
  expect(halted).toContain('Upload another APK to roll it out.');
  expect(page(rollout('running', []))).toContain(
    'action="/ui/apps/dev.apkrelay.sample/rollouts/pause"',
  );
  expect(page(rollout('running', [])).match(/name="_csrf" value="csrf-token"/g)).toHaveLength(
    // the four actions and the log-out form
    5,
  );
});

test('targeting values are escaped; no rollout says so', () => {
  expect(cell(page(rollout('running', [])), 'targeting')).toBe('metadata store in &lt;north&gt;');
  expect(page(null)).toContain('No rollout yet.');
});
