/** The Rollouts tab's rendering: the numbers as written, the buttons per state, escaping. */
import { ObjectId } from 'mongodb';
import type { ApkDoc, AppDoc } from '../../../../shared/catalog/types';
import type { PresentedRollout } from '../../../../shared/rollouts/present';
import { rolloutsTab, type RolloutProblem } from '../../../../api/rollouts/web-views';
import { viewerAs } from '../../../helpers/web-views';
import { flat } from '../../../helpers/markup';

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
    offered: state === 'halted' ? 0 : 2,
    installations: 40,
    startedAt: T,
    stageStartedAt: T,
    nextStageAt: state === 'running' ? '2026-11-25T13:00:00.000Z' : null,
    updatedAt: T,
    haltReason:
      state === 'halted' ? 'Halted by the health gate: 2.0 crashed 5× as often as 1.0.' : null,
    gate: { factor: 2, minExceptions: 10, soakMs: 3_600_000 },
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

const now = new Date('2026-11-25T12:30:00Z');
const page = (
  r: PresentedRollout | null,
  problem: RolloutProblem | null = null,
  apks: ApkDoc[] = [],
) => rolloutsTab(viewer, app, { rollout: r, funnel: null, apks, now, problem });
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

test('the pictures: stages with the current one marked, the reach, the next stage, the halt reason', () => {
  const running = flat(page(rollout('running', [])));
  expect(running).toContain('Stage 1 of 2 (5 %), running; stages 5 %, 100 %.');
  expect(running).toContain(
    '<span data-reach="offered">2</span> of <span data-reach="installations">40</span> installations offered 2.0 (2); <span data-reach="installed">3</span> run it.',
  );
  expect(running).toContain(
    'Next stage: <span data-reach="next">100</span> % at <time datetime="2026-11-25T13:00:00.000Z" title="2026-11-25 13:00:00 UTC">in 30 min</time>',
  );
  const halted = flat(page(rollout('halted', [halt])));
  expect(halted).toContain('Halted at stage 1 of 2 (5 %); stages 5 %, 100 %.');
  expect(halted).toContain('Halted by the health gate: 2.0 crashed 5× as often as 1.0.');
  expect(halted).not.toContain('Next stage');
  // The raw numbers stay, collapsed.
  expect(halted).toMatch(/<details class="rollout-numbers">.*data-action="halt".*<\/details>/);
});

test('Halt and Complete ask for a ticked box first; Pause and Advance do not', () => {
  const out = flat(page(rollout('running', [])));
  const form = (action: string) =>
    new RegExp(`<form class="\\w+" method="post" action="[^"]*/${action}">(.*?)</form>`).exec(
      out,
    )?.[1] ?? '';
  expect(form('halt')).toContain(
    '<input type="checkbox" name="confirm" value="yes" required /> Halt: 2.0 (2) is offered to no installation any more; those on it keep it.',
  );
  expect(form('complete')).toContain(
    'name="confirm" value="yes" required /> Complete: 2.0 (2) becomes the current APK of every installation.',
  );
  expect(form('pause')).not.toContain('confirm');
  expect(form('advance')).not.toContain('confirm');
});

test('a refused start form is shown above the form, with what was typed kept', () => {
  const apks = [
    {
      _id: new ObjectId(),
      versionCode: 1,
      versionName: '1.0',
      sha256: '1'.repeat(64),
      md5: '1'.repeat(32),
    },
    {
      _id: new ObjectId(),
      versionCode: 2,
      versionName: '2.0',
      sha256: '2'.repeat(64),
      md5: '2'.repeat(32),
    },
  ] as ApkDoc[];
  const problem: RolloutProblem = {
    message: 'stages: the last one must be 100',
    form: 'start',
    fields: {
      sha256: '2'.repeat(64),
      stages: '5, 50',
      metadataKey: 'store',
      metadataValues: 'north, <south>',
      deviceIds: 'd1\nd2',
    },
  };
  const out = flat(page(null, problem, apks));
  expect(out).toContain(
    '<p class="error" role="alert" id="rollout-problem">stages: the last one must be 100</p>',
  );
  expect(out).toContain(`<option value="${'2'.repeat(64)}" selected>`);
  expect(out).not.toContain(`<option value="${'1'.repeat(64)}" selected>`);
  expect(out).toContain('name="stages" placeholder="1, 5, 25, 100" value="5, 50"');
  expect(out).toContain('name="metadataKey" placeholder="store" value="store"');
  expect(out).toContain('value="north, &lt;south&gt;"');
  expect(out).toContain('rows="3">d1 d2</textarea>');
});

test('a refused action is shown above the actions', () => {
  const problem: RolloutProblem = {
    message: 'Tick the box to confirm first: nothing was done.',
    form: 'halt',
  };
  expect(flat(page(rollout('running', []), problem))).toMatch(
    /id="rollout-problem">Tick the box to confirm first: nothing was done.<\/p> <div class="rollout-actions">/,
  );
});

test('a start refused because a rollout is active is shown above its buttons (no start form then)', () => {
  const problem: RolloutProblem = {
    message: 'A rollout of this app is running or paused: halt or complete it first.',
    form: 'start',
    fields: { stages: '10, 100' },
  };
  const out = flat(page(rollout('running', []), problem));
  expect(out).not.toContain('Start rollout');
  expect(out).toMatch(
    /id="rollout-problem">A rollout of this app is running or paused: halt or complete it first.<\/p> <div class="rollout-actions">/,
  );
  // No APK to roll out: the refusal is still shown.
  expect(flat(page(null, { ...problem, message: 'no such APK' }))).toContain(
    'id="rollout-problem">no such APK</p> <p>Upload another APK to roll it out.</p>',
  );
});
